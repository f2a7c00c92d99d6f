package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/eoslab/eoslab/serve"
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
