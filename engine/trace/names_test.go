package trace

import (
	"strconv"
	"testing"
)

// The name forms (API, Addr, Conn) read back as the texts they stand
// for, in every way an event is read: Get, All, JSON and the sentence.
// They take fewer bytes than the texts, and fall back to them where no
// short form says the name.
func TestNamesReadAsText(t *testing.T) {
	for _, c := range []struct {
		api           string
		from, to      int // a broker's number, or 0 for the client "p1"
		resp          bool
		conn          int
		said, shorter bool
	}{
		{api: "Produce", to: 1, conn: 1, said: true, shorter: true},
		{api: "Produce", from: 2, resp: true, conn: 3, said: true, shorter: true},
		{api: "Fetch", from: 70, to: 1, conn: 200, shorter: true},
		{api: "EndTxn", to: 64, conn: 64, said: true, shorter: true},
		{api: "DescribeCluster", to: 1, conn: 1, shorter: true}, // an API of no number, a connection not said: texts
	} {
		name := func(b int) string {
			if b == 0 {
				return "p1"
			}
			return "broker " + strconv.Itoa(b)
		}
		from, to := name(c.from), name(c.to)
		opener, broker := from, to
		if c.resp {
			opener, broker = to, from
		}
		conn := opener + "-" + broker + " #" + strconv.Itoa(c.conn)
		if !c.said {
			conn = "broker 70 fetcher-broker 1 #" + strconv.Itoa(c.conn)
		}
		client := func(b int, s string) string {
			if b == 0 {
				return s
			}
			return ""
		}
		short := Builder(nil).Int(KeyMessage, 9).API(KeyAPI, c.api).Bool(KeyResponse, c.resp).
			Addr(KeyFrom, c.from, client(c.from, from)).Addr(KeyTo, c.to, client(c.to, to)).
			Conn(KeyConnection, conn, c.conn, c.said).Say(SentenceDeliver)
		long := Builder(nil).Int(KeyMessage, 9).Str(KeyAPI, c.api).Bool(KeyResponse, c.resp).
			Str(KeyFrom, from).Str(KeyTo, to).Str(KeyConnection, conn).Say(SentenceDeliver)
		a, b := Event{Kind: "message.deliver", Attrs: Attrs(short)}, Event{Kind: "message.deliver", Attrs: Attrs(long)}
		if string(a.AppendJSON(nil)) != string(b.AppendJSON(nil)) || a.Text() != b.Text() || a.Attrs.Len() != b.Attrs.Len() {
			t.Fatalf("%+v: read as\n%s\n%s\nwant\n%s\n%s", c, a.AppendJSON(nil), a.Text(), b.AppendJSON(nil), b.Text())
		}
		for _, k := range []string{"api", "from", "to", "connection"} {
			if x, _ := a.Attrs.Get(k); x != func() Value { v, _ := b.Attrs.Get(k); return v }() {
				t.Fatalf("%+v: %s reads as %#v", c, k, x)
			}
		}
		if (len(short) < len(long)) != c.shorter {
			t.Fatalf("%+v: %d bytes against the texts' %d", c, len(short), len(long))
		}
	}
}
