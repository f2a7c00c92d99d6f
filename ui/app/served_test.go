package app

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/serve"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/batchbytes"
	"github.com/eoslab/eoslab/ui/session"
)

// eoslab serve --tui: the sandbox opens on the served cluster, the lab's
// loop pumps the server, a real producer appears by its client.id, held
// requests go in with :release, a command given while looking at the past
// acts at the present without forking, and :save writes the arrivals.
func TestServedSandbox(t *testing.T) {
	sess := session.New(1, nil)
	if _, err := sess.ApplyLive(serve.Cluster("orders", 3)); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.Start(serve.Config{Listen: "127.0.0.1:0", Manual: true, Hold: true, Logf: t.Logf}, session.LiveEngine{S: sess})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	opt := testOptions(t, false)
	opt.Serve = &Served{Session: sess, Pump: srv.Pump, Held: srv.Held, Release: srv.Release, Addr: srv.Addrs()[0]}
	m := newModel(t, opt, 120, 40)
	if m.Screen() != SandboxScreen || !strings.Contains(m.Status(), "serving on") {
		t.Fatalf("screen %d, status %q", m.Screen(), m.Status())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		cl, err := kgo.NewClient(kgo.SeedBrokers(srv.Addrs()[0]), kgo.DefaultProduceTopic("orders"), kgo.ClientID("tui-writer"))
		if err != nil {
			done <- err
			return
		}
		defer cl.Close()
		done <- cl.ProduceSync(ctx, &kgo.Record{Value: []byte("hello")}).FirstErr()
	}()
	for produced := false; !produced; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			produced = true
		case <-ctx.Done():
			t.Fatal("the produce did not finish")
		default:
			if srv.Held() > 0 {
				m = typeLine(t, m, "release")
			}
			m = pumpOnce(m)
			time.Sleep(time.Millisecond)
		}
	}
	for range 20 { // the answer's last steps
		m = pumpOnce(m)
		time.Sleep(time.Millisecond)
	}
	found := false
	for _, p := range m.Session().Snapshot().Producers {
		found = found || p.Name == "tui-writer"
	}
	if !found || !strings.Contains(m.View(), "tui-writer") {
		t.Fatalf("the real producer is not in the lab:\n%s", m.View())
	}
	// Look back, then act: the command applies at the present, no fork.
	present := sess.Timeline()
	m, _ = send(t, m, keyLeft, keyLeft)
	if !sess.Behind() {
		t.Fatal("← did not go back")
	}
	m = typeLine(t, m, "lose response tui-writer")
	if sess.Timeline() != present || !strings.Contains(m.Status(), "at the present") {
		t.Fatalf("the command forked or said nothing: %q", m.Status())
	}
	m, _ = send(t, m, keyRunes("G")) // back to the present: :save writes up to the shown moment
	if script := sess.Script(); !strings.Contains(script, "arrive ") || !strings.Contains(script, "lose response tui-writer") {
		t.Fatalf(":save would write:\n%s", script)
	}
}

// pumpOnce delivers one servedMsg without running the tick it schedules.
func pumpOnce(m Model) Model {
	next, _ := m.Update(servedMsg{})
	return next.(Model)
}

// tee records what a client writes to its sockets.
type tee struct {
	net.Conn
	mu  *sync.Mutex
	out *[]byte
}

func (c tee) Write(b []byte) (int, error) {
	c.mu.Lock()
	*c.out = append(*c.out, b...)
	c.mu.Unlock()
	return c.Conn.Write(b)
}

// producedBatches decodes the Produce requests among the frames a client
// wrote: the record batches exactly as it sent them, for partition 0.
func producedBatches(t *testing.T, wire []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(wire) >= 4 {
		n := int(binary.BigEndian.Uint32(wire))
		frame := wire[4 : 4+n]
		wire = wire[4+n:]
		hdr, req, _, err := sim.DecodeRequest(frame)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := req.(*kmsg.ProduceRequest); ok && hdr.Key == 0 {
			for _, tp := range p.Topics {
				for _, pp := range tp.Partitions {
					out = append(out, pp.Records)
				}
			}
		}
	}
	return out
}

// The served sandbox shows a real client's batch byte for byte as its
// bytes left the client (captured on the client's own sockets), and a
// fault key acts on its real connection: `a` (lose response) on the real
// producer breaks the connection after the append, kgo retries on a new
// one, and the broker recognises the duplicate and answers with the
// original offset.
func TestServedSandboxBytesAndFaultKeys(t *testing.T) {
	sess := session.New(1, nil)
	if _, err := sess.ApplyLive(serve.Cluster("orders", 3)); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.Start(serve.Config{Listen: "127.0.0.1:0", Manual: true, Logf: t.Logf}, session.LiveEngine{S: sess})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	opt := testOptions(t, false)
	opt.Serve = &Served{Session: sess, Pump: srv.Pump, Held: srv.Held, Release: srv.Release, Addr: srv.Addrs()[0]}
	m := newModel(t, opt, 120, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var wire []byte
	dial := func(ctx context.Context, network, host string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, host)
		if err != nil {
			return nil, err
		}
		return tee{c, &mu, &wire}, nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(srv.Addrs()...), kgo.DefaultProduceTopic("orders"), kgo.ClientID("tui-writer"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.Dialer(dial))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	produce := func(r *kgo.Record) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- cl.ProduceSync(ctx, r).FirstErr() }()
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				for range 20 { // the answer's last steps
					m = pumpOnce(m)
					time.Sleep(time.Millisecond)
				}
				return
			case <-ctx.Done():
				t.Fatal("the produce did not finish")
			default:
				m = pumpOnce(m)
				time.Sleep(time.Millisecond)
			}
		}
	}
	produce(&kgo.Record{Value: []byte("as the client wrote it")})
	mu.Lock()
	sent := producedBatches(t, wire)
	mu.Unlock()
	if len(sent) != 1 {
		t.Fatalf("the client sent %d batches, want 1", len(sent))
	}
	// Go to the step where the request reached the leader: the panel
	// shows the batch as sent, the client's own bytes.
	step := -1
	for _, e := range sess.Trace().Events() {
		if e.Kind == "message.send" && e.Str("api") == "Produce" && !e.Bool("response") && e.Str("from") == "tui-writer" {
			step = e.Step
		}
	}
	if step < 0 {
		t.Fatal("no Produce from tui-writer in the trace")
	}
	m = typeLine(t, m, fmt.Sprintf("goto %d", step))
	d := panel.Data{Snap: sess.Snapshot(), Trace: sess.Trace(), Partition: "orders-0", Motion: panel.Jump}
	if c := batchbytes.Select(&d); !bytes.Equal(c.Bytes, sent[0]) || !strings.Contains(c.Label, "tui-writer batch #1 as sent") {
		t.Fatalf("the header-bytes panel shows %q (%d bytes), not the %d bytes the client sent", c.Label, len(c.Bytes), len(sent[0]))
	}
	if !strings.Contains(m.View(), "tui-writer batch #1 as sent") {
		t.Fatalf("the lab does not show the batch as sent:\n%s", m.View())
	}
	m, _ = send(t, m, keyRunes("G")) // back to the present
	m, _ = send(t, m, keyRunes("a"))
	if !strings.Contains(m.Status(), "lose response tui-writer") {
		t.Fatalf("the fault key proposes %q, want lose response tui-writer", m.Status())
	}
	if v := m.View(); !strings.Contains(v, "serve closes its socket") {
		t.Errorf("the proposal for a real client does not say what serve does:\n%s", v)
	}
	m, _ = send(t, m, keyRunes("y"))
	// A real client cannot be restarted or paused from the lab.
	for _, k := range []string{"R", "Z"} {
		m, _ = send(t, m, keyRunes(k))
		if !strings.Contains(m.Status(), "real client") {
			t.Errorf("key %s on a real client: %q", k, m.Status())
		}
	}
	r := &kgo.Record{Value: []byte("retried")}
	produce(r)
	if r.Offset != 1 {
		t.Errorf("the retried record was acknowledged at offset %d, want the original 1", r.Offset)
	}
	dups := 0
	for _, e := range sess.Trace().Events() {
		if e.Kind == "produce.decision" && e.Str("outcome") == "duplicate" && e.Str("producer") == "tui-writer" {
			dups++
		}
	}
	snap := sess.Timeline().Snapshot()
	if dups != 1 || snap.Partitions[0].HighWatermark != 2 || len(snap.Anomalies) != 0 {
		t.Errorf("%d duplicate decisions, orders-0 holds %d records, anomalies %v; want 1, 2, none", dups, snap.Partitions[0].HighWatermark, snap.Anomalies)
	}

	// What :save writes replays (eoslab play) to the same world: the
	// same logs byte for byte, the same real producer and its batches.
	cl.Close()
	for range 20 {
		m = pumpOnce(m)
		time.Sleep(time.Millisecond)
	}
	m, _ = send(t, m, keyRunes("G"))
	cmds, err := script.Parse("session.eos", []byte(sess.Script()))
	if err != nil {
		t.Fatal(err)
	}
	w := sim.New(1)
	for _, c := range cmds {
		if _, err := w.Apply(c); err != nil {
			t.Fatalf("%s: %v", c.Position(), err)
		}
	}
	a, b := sess.Snapshot(), w.Snapshot()
	if a.Step != b.Step || fmt.Sprint(a.Partitions) != fmt.Sprint(b.Partitions) || fmt.Sprint(a.Producers) != fmt.Sprint(b.Producers) {
		t.Fatalf("the saved session replays to step %d, the lab is at step %d; partitions or producers differ", b.Step, a.Step)
	}
}
