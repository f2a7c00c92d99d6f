package trace

import "math/bits"

// AppendInt appends v in decimal to b, as strconv.AppendInt(b, v, 10)
// does, but writes the digits straight into b, two at a time, where
// strconv formats them into a buffer of its own and copies them: the
// produce path's sentences carry some thirty numbers a produce, nearly
// all below 10^8 (ids, offsets, sequences, times), which take a path with
// no loop. A single digit, a good part of them (epochs, counts, brokers),
// is written where AppendInt is called: this much is inlined.
func AppendInt(b []byte, v int64) []byte {
	if uint64(v) < 10 {
		return append(b, byte('0'+v))
	}
	return appendDecimal(b, v)
}

// appendDecimal is AppendInt past a single digit. The groups of up to
// four digits are written here, not by a helper: a call passing b in and
// out costs about as much as the digits it writes.
func appendDecimal(b []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		b = append(b, '-')
		u = -u
	}
	if u >= 1e4 {
		if u >= 1e8 {
			return appendLong(b, u)
		}
		hi := u / 1e4
		u -= hi * 1e4
		switch {
		case hi < 10: // five digits, the most common here: one append
			h, l := u/100, u%100
			return append(b, byte('0'+hi), digitPairs[2*h], digitPairs[2*h+1], digitPairs[2*l], digitPairs[2*l+1])
		case hi < 100:
			b = append(b, digitPairs[2*hi], digitPairs[2*hi+1])
		case hi < 1000:
			lo := hi % 100
			b = append(b, byte('0'+hi/100), digitPairs[2*lo], digitPairs[2*lo+1])
		default:
			b = appendFour(b, hi)
		}
		return appendFour(b, u)
	}
	switch {
	case u < 10:
		return append(b, byte('0'+u))
	case u < 100:
		return append(b, digitPairs[2*u], digitPairs[2*u+1])
	case u < 1000:
		lo := u % 100
		return append(b, byte('0'+u/100), digitPairs[2*lo], digitPairs[2*lo+1])
	}
	return appendFour(b, u)
}

// appendFour appends u < 10^4 as four digits, with leading zeros.
func appendFour(b []byte, u uint64) []byte {
	hi, lo := u/100, u%100
	return append(b, digitPairs[2*hi], digitPairs[2*hi+1], digitPairs[2*lo], digitPairs[2*lo+1])
}

// appendLong appends any u, two digits at a time.
func appendLong(b []byte, u uint64) []byte {
	n := int(bits.Len64(u)*1233) >> 12 // about log10(u): the number of digits, or one less
	if u >= pow10[n] {
		n++
	}
	i := len(b) + n
	if i > cap(b) {
		b = append(b[:cap(b)], make([]byte, i-cap(b))...)
	}
	b = b[:i]
	for u >= 100 {
		r := u % 100
		u /= 100
		i -= 2
		b[i], b[i+1] = digitPairs[2*r], digitPairs[2*r+1]
	}
	if u >= 10 {
		b[i-2], b[i-1] = digitPairs[2*u], digitPairs[2*u+1]
	} else {
		b[i-1] = byte('0' + u)
	}
	return b
}

// digitPairs is 00 to 99, two bytes each.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// pow10 is 10 to the power of its index, up to the largest uint64 holds.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19}
