package script

import (
	"encoding/base64"
	"strconv"
)

// MaxRequestBytes is Kafka's socket.request.max.bytes default: the largest
// request a broker reads (100 MiB).
const MaxRequestBytes = 100 << 20

// minRequestBytes is the smallest request: api key, version and
// correlation id (ControlledShutdown v0's header has no client id).
const minRequestBytes = 8

// Arrive is a request a real Kafka client sent to `eoslab serve`: its
// bytes exactly as they came off the socket (the request header and body,
// without the 4-byte size), on connection Conn to broker Broker, at time
// AtMs. API names the request for people; the bytes say it again, and the
// world checks that the two agree. `eoslab serve` records every arrival,
// so a served session saved as a script replays to the same world.
type Arrive struct {
	At     Pos
	Conn   int
	Broker int
	API    string
	AtMs   int64
	Data   []byte
}

func (a *Arrive) Position() Pos { return a.At }
func (a *Arrive) Verb() string  { return "arrive" }

func parseArrive(l *cmdLine) (Command, *Error) {
	conn, err := l.connArg()
	if err != nil {
		return nil, err
	}
	bt, err := l.positional("BROKER")
	if err != nil {
		return nil, err
	}
	broker, err := l.count(bt, "BROKER", limBrokerID)
	if err != nil {
		return nil, err
	}
	at, err := l.positional("API")
	if err != nil {
		return nil, err
	}
	if !isIdent(at.val) {
		return nil, l.errf(at.pos, "API must be a Kafka API name such as Produce, got %s", Quote(at.val))
	}
	opts, err := l.options(optSpec{keys: []string{"at", "data"}})
	if err != nil {
		return nil, err
	}
	a := &Arrive{At: l.at, Conn: conn, Broker: broker, API: at.val, AtMs: -1}
	for _, t := range opts {
		switch t.key {
		case "at":
			n, err := l.number(t, "at", limAtMs)
			if err != nil {
				return nil, err
			}
			a.AtMs = n
		case "data":
			if base64.StdEncoding.DecodedLen(len(t.val)) > MaxRequestBytes+2 {
				return nil, l.errf(t.pos, "data must be at most %d bytes (a request is at most socket.request.max.bytes, 100 MiB)", MaxRequestBytes)
			}
			b, derr := base64.StdEncoding.DecodeString(t.val)
			if derr != nil {
				return nil, l.errf(t.pos, "data must be standard base64: %v", derr)
			}
			if len(b) < minRequestBytes || len(b) > MaxRequestBytes {
				return nil, l.errf(t.pos, "data must hold %d to %d bytes (a request header to socket.request.max.bytes), got %d", minRequestBytes, MaxRequestBytes, len(b))
			}
			a.Data = b
		}
	}
	if a.AtMs < 0 {
		return nil, l.missing("at=MS")
	}
	if a.Data == nil {
		return nil, l.missing("data=BASE64")
	}
	return a, nil
}

func (a *Arrive) formatArgs(w *words) {
	w.add(strconv.Itoa(a.Conn), strconv.Itoa(a.Broker), a.API)
	w.num("at", a.AtMs)
	w.add("data=" + base64.StdEncoding.EncodeToString(a.Data))
}

// Hangup is a real client closing its connection Conn at time AtMs (or
// `eoslab serve` closing it after a fault broke it): what the client sent
// before still arrives; nothing more reaches it.
type Hangup struct {
	At   Pos
	Conn int
	AtMs int64
}

func (h *Hangup) Position() Pos { return h.At }
func (h *Hangup) Verb() string  { return "hangup" }

func parseHangup(l *cmdLine) (Command, *Error) {
	conn, err := l.connArg()
	if err != nil {
		return nil, err
	}
	opts, err := l.options(optSpec{keys: []string{"at"}})
	if err != nil {
		return nil, err
	}
	h := &Hangup{At: l.at, Conn: conn, AtMs: -1}
	for _, t := range opts {
		n, err := l.number(t, "at", limAtMs)
		if err != nil {
			return nil, err
		}
		h.AtMs = n
	}
	if h.AtMs < 0 {
		return nil, l.missing("at=MS")
	}
	return h, nil
}

func (h *Hangup) formatArgs(w *words) {
	w.add(strconv.Itoa(h.Conn))
	w.num("at", h.AtMs)
}

func (l *cmdLine) connArg() (int, *Error) {
	t, err := l.positional("CONN")
	if err != nil {
		return 0, err
	}
	return l.count(t, "CONN", limConn)
}
