package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/eoslab/eoslab/internal/fileio"
	"github.com/eoslab/eoslab/serve"
	"github.com/eoslab/eoslab/ui/app"
	"github.com/eoslab/eoslab/ui/session"
)

type serveFlags struct {
	listen     string
	topic      string
	partitions int
	hold       bool
	tui        bool
	trace      string
	data       string
	save       string
	maxConns   int
}

func newServeCommand(cfg *config) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the embedded cluster over Kafka's wire protocol, for real clients",
		Long: `serve starts the embedded cluster (3 brokers, each on its own port: by
default 127.0.0.1:9092-9094) behind Kafka's wire protocol, so that real Kafka
clients — Java, franz-go, librdkafka (kcat), Python — produce and consume
while eoslab decides on every request as Kafka would (docs/serve.md). The
cluster starts with --topic; clients create more as with Kafka's defaults
(auto.create.topics.enable=true, num.partitions=1) or with CreateTopics.

Every request a client sends is recorded with its arrival time; headless,
serve prints one line per decision (--trace json: every event as JSON
Lines) and stops cleanly on SIGINT or SIGTERM. --tui opens the sandbox on
the served cluster: the fault keys and commands act on the real
connections, and :save writes the session as a script that eoslab play
replays. --hold holds every request until it is released (:release in the
lab, enter on standard input headless).

  kcat -b 127.0.0.1:9092 -t orders -P -X enable.idempotence=true
  kcat -b 127.0.0.1:9092 -t orders -C -X isolation.level=read_committed -e`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, cfg, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:9092", "HOST:PORT of broker 1; broker N listens on PORT+N-1 (loopback unless you name another address)")
	fl.StringVar(&f.topic, "topic", "orders", "the cluster's topic, which the lab's own producers write (clients may create others)")
	fl.IntVar(&f.partitions, "partitions", 3, "the partitions of --topic")
	fl.BoolVar(&f.hold, "hold", false, "hold every request until it is released (:release in the lab; enter on standard input headless)")
	fl.BoolVar(&f.tui, "tui", false, "open the sandbox on the served cluster")
	fl.StringVar(&f.trace, "trace", "text", "headless output: text (one line per decision) or json (every event, JSON Lines)")
	fl.StringVar(&f.data, "data", "", "write each partition's log as segment files under this directory")
	fl.StringVar(&f.save, "save", "", "headless: on exit, write the session as a script that eoslab play replays")
	fl.IntVar(&f.maxConns, "max-connections", serve.DefaultMaxConnections, "connections open at once, over all brokers")
	return cmd
}

// decisionKinds are the events headless text output prints: what a
// broker, a coordinator or the network decided.
var decisionKinds = map[trace.Kind]bool{
	"produce.decision": true, "txn.state": true, "txn.marker": true, "txn.marker_refused": true, "txn.offsets": true,
	"group.offsets": true, "connection.close": true, "message.lost": true, "leader.change": true, "broker.restart": true,
	"broker.kill": true, "fault.armed": true, "kafka.refuse": true, "txn.fence": true, "txn.timeout": true, "isr.shrink": true, "isr.expand": true,
}

func runServe(cmd *cobra.Command, cfg *config, f *serveFlags) error {
	if f.trace != "text" && f.trace != "json" {
		return fmt.Errorf("--trace must be text or json, not %q", f.trace)
	}
	if f.maxConns < 1 {
		return fmt.Errorf("--max-connections must be at least 1, got %d", f.maxConns)
	}
	if _, _, err := net.SplitHostPort(f.listen); err != nil {
		return fmt.Errorf("--listen %q: %v (want HOST:PORT, e.g. 127.0.0.1:9092)", f.listen, err)
	}
	if _, err := script.ParseLine(fmt.Sprintf("cluster topic=%s partitions=%d", f.topic, f.partitions)); err != nil {
		// The check is the command language's; its position is of a line the user never wrote.
		why := err.Error()
		var se *script.Error
		if errors.As(err, &se) {
			why = strings.TrimPrefix(se.Msg, "cluster: ")
		}
		return fmt.Errorf("--topic %q --partitions %d: %s", f.topic, f.partitions, why)
	}
	if f.data != "" {
		if err := os.MkdirAll(f.data, 0o755); err != nil {
			return fmt.Errorf("--data: %v", err)
		}
	}
	seed := cfg.Options().Seed
	if f.tui {
		return serveTUI(cmd, cfg, f, seed)
	}
	out := cmd.OutOrStdout()
	w := sim.New(seed)
	rec := serve.NewRecorder(w)
	if _, err := rec.Apply(serve.Cluster(f.topic, f.partitions)); err != nil {
		return err
	}
	var mu sync.Mutex
	var buf []byte
	print := func(evs []trace.Event) {
		mu.Lock()
		defer mu.Unlock()
		buf = buf[:0]
		for i := range evs {
			e := &evs[i]
			if f.trace == "json" {
				buf = append(e.AppendJSON(buf), '\n')
			} else if decisionKinds[e.Kind] {
				buf = append(buf, fmt.Sprintf("%-9s %s\n", trace.FormatTime(e.TimeMs), e.Text())...)
			}
		}
		out.Write(buf)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), "eoslab serve: "+format+"\n", a...) }
	// Catch the signals before saying where the brokers listen: from then
	// on, SIGINT and SIGTERM stop serve cleanly.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := serve.Start(serve.Config{Listen: f.listen, Hold: f.hold, OnEvents: print, Logf: logf, DataDir: f.data, MaxConnections: f.maxConns}, rec)
	if err != nil {
		return err
	}
	addrs := srv.Addrs()
	logf("brokers 1-%d on %s; topic %s with %d partitions; stop with ctrl+c", len(addrs), strings.Join(addrs, ", "), f.topic, f.partitions)
	if f.hold {
		logf("--hold: every request waits; press enter to release the oldest")
		go releaseOnEnter(ctx, cmd.InOrStdin(), srv, logf)
	}
	<-ctx.Done()
	err = srv.Close()
	logf("stopped after %d step(s)", w.Steps())
	if f.save != "" {
		if serr := fileio.WriteAtomic(f.save, []byte(rec.Script())); serr != nil {
			return errors.Join(err, fmt.Errorf("--save: %w", serr))
		}
		logf("saved the session to %s: replay it with eoslab play --seed %d %s", f.save, seed, f.save)
	}
	return err
}

// releaseOnEnter releases one held request per line of standard input.
func releaseOnEnter(ctx context.Context, in io.Reader, srv *serve.Server, logf func(string, ...any)) {
	sc := bufio.NewScanner(in)
	for sc.Scan() && ctx.Err() == nil {
		if srv.Release() {
			logf("released a request; %d held", srv.Held())
		} else {
			logf("no request is held")
		}
	}
}

// serveTUI opens the sandbox on the served cluster; the lab's loop pumps
// the server, so the session is only touched there.
func serveTUI(cmd *cobra.Command, cfg *config, f *serveFlags, seed uint64) error {
	opt, err := lessonOptions(cfg)
	if err != nil {
		return err
	}
	sess := session.New(seed, nil)
	if _, err := sess.ApplyLive(serve.Cluster(f.topic, f.partitions)); err != nil {
		return err
	}
	var logMu sync.Mutex
	var last string
	logf := func(format string, a ...any) {
		logMu.Lock()
		last = fmt.Sprintf(format, a...)
		logMu.Unlock()
	}
	srv, err := serve.Start(serve.Config{Listen: f.listen, Hold: f.hold, Logf: logf, DataDir: f.data, MaxConnections: f.maxConns, Manual: true},
		session.LiveEngine{S: sess})
	if err != nil {
		return err
	}
	opt.Serve = &app.Served{Session: sess, Pump: srv.Pump, Held: srv.Held, Release: srv.Release, Addr: strings.Join(srv.Addrs(), ", ")}
	runErr := app.Run(opt, screenFlags(cmd, cfg).program()...)
	if errors.Is(runErr, tea.ErrInterrupted) {
		runErr = nil // SIGINT (without a terminal, not ctrl+c): stop serving, as headless
	}
	closeErr := srv.Close()
	if last != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "eoslab serve: last message: %s\n", last)
	}
	return errors.Join(runErr, closeErr)
}
