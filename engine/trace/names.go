package trace

import (
	"strconv"
	"strings"
)

// The message events of every step say the same few names again and
// again: the API ("Produce"), a broker ("broker 1") and the connection
// the message travels on ("p1-broker 1 #1"). Written by the Builder's
// name forms below, each takes its key and kind and a byte or two, and
// reads back as the text it stands for: the same Value, the same JSON.

// apis is the table of the API names the engine's messages carry
// (msg.Body.Name), by number (read only).
var apis = [...]string{
	"Produce", "Fetch", "InitProducerId", "AddPartitionsToTxn", "AddOffsetsToTxn",
	"TxnOffsetCommit", "EndTxn", "WriteTxnMarkers",
}

// apiNumber is name's number in apis.
func apiNumber(name string) (byte, bool) {
	for i, a := range apis {
		if a == name {
			return byte(i), true
		}
	}
	return 0, false
}

// brokerNames are "broker 0" to "broker 63", made once (read only).
var brokerNames = func() (t [64]string) {
	for i := range t {
		t[i] = "broker " + strconv.Itoa(i)
	}
	return t
}()

// brokerName is broker n's name, as msg.Addr says it.
func brokerName(n int64) string {
	if n >= 0 && n < int64(len(brokerNames)) {
		return brokerNames[n]
	}
	return "broker " + strconv.FormatInt(n, 10)
}

// API appends the name of a message's API: by its number when it is one
// of the engine's, else as Str does. (The produce path's, inlined.)
func (b Builder) API(k Key, name string) Builder {
	if name == "Produce" {
		return append(b, byte(k), 'A', 0)
	}
	return b.api(k, name)
}

func (b Builder) api(k Key, name string) Builder {
	if n, ok := apiNumber(name); ok {
		return append(b, byte(k), 'A', n)
	}
	return b.Str(k, name)
}

// Addr appends a message's end: broker n, by its number, when n > 0;
// else the client's name, as Str does. (The first brokers', inlined: a
// one-byte varint.)
func (b Builder) Addr(k Key, broker int, client string) Builder {
	if broker > 0 && broker < 0x40 {
		return append(b, byte(k), 'B', byte(broker<<1))
	}
	return b.addr(k, broker, client)
}

func (b Builder) addr(k Key, broker int, client string) Builder {
	if broker > 0 {
		return appendInt(append(b, byte(k), 'B'), int64(broker))
	}
	return b.Str(k, client)
}

// Conn appends the name of the connection a message travels on, which
// its opener's client end gave it (msg.Addr and the connection's
// number, "p1-broker 1 #3"): when said, the attributes already hold the
// message's ends (KeyFrom, KeyTo) and whether it is an answer
// (KeyResponse), and the name is theirs and n's alone, opener + "-" +
// broker + " #" + n. Any other name (a follower's fetcher, a marker
// channel's) is written as Str does.
func (b Builder) Conn(k Key, name string, n int, said bool) Builder {
	if said && uint(n) < 0x40 {
		return append(b, byte(k), 'C', byte(n<<1))
	}
	return b.conn(k, name, n, said)
}

func (b Builder) conn(k Key, name string, n int, said bool) Builder {
	if said {
		return appendInt(append(b, byte(k), 'C'), int64(n))
	}
	return b.Str(k, name)
}

// connName is the name Conn's short form stands for, the attributes
// before it starting at a[from] and ending at a[to].
func (a attrBytes) connName(from, to int, n int64) string {
	var src, dst string
	var resp bool
	for i := from; i < to; {
		at, next := a.at(i)
		switch at.Key {
		case "from":
			src = at.Val.s
		case "to":
			dst = at.Val.s
		case "response":
			resp = at.Val.i != 0
		}
		i = next
	}
	opener, broker := src, dst
	if resp {
		opener, broker = dst, src
	}
	var s strings.Builder
	s.Grow(len(opener) + len(broker) + 24)
	s.WriteString(opener)
	s.WriteByte('-')
	s.WriteString(broker)
	s.WriteString(" #")
	s.WriteString(strconv.FormatInt(n, 10))
	return s.String()
}
