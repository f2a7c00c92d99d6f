// Package serve puts Kafka's wire protocol in front of the engine: each
// broker of the embedded cluster listens on its own TCP port, every
// request a real client sends becomes an `arrive` input with its arrival
// time (so a served session is recorded and replays), and the world's
// answers go back out to the sockets.
//
// One goroutine (the loop) owns the engine; connection goroutines only
// read frames and write responses. The engine's logical clock follows the
// wall clock: an event due at logical time t is performed when t
// milliseconds have passed since the server started.
package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka's defaults for the limits a served broker enforces.
const (
	// MaxRequestBytes is socket.request.max.bytes: a larger frame closes
	// the connection before it is read.
	MaxRequestBytes = script.MaxRequestBytes
	// MaxMessageBytes is message.max.bytes: a larger batch is refused with
	// MESSAGE_TOO_LARGE.
	MaxMessageBytes = sim.MaxMessageBytes
	// DefaultMaxConnections bounds the connections open at once, over all
	// brokers (Kafka's max.connections is unbounded by default; a lab on a
	// laptop is not).
	DefaultMaxConnections = 256
)

// defaultListen is where broker 1 listens unless told otherwise:
// loopback, Kafka's port.
const defaultListen = "127.0.0.1:9092"

// Engine is what the server drives: the headless world, or the lab's
// session (--tui), which keeps the history for time travel and :save.
// Every method is called from the server's loop only.
type Engine interface {
	// World is the present world (the live timeline's newest world).
	World() *sim.World
	// Apply performs a command at the present.
	Apply(c script.Command) ([]trace.Event, error)
	// Step performs the next due event at the present.
	Step() ([]trace.Event, bool)
}

// worldEngine drives a bare world.
type worldEngine struct{ w *sim.World }

func (e worldEngine) World() *sim.World                             { return e.w }
func (e worldEngine) Apply(c script.Command) ([]trace.Event, error) { return e.w.Apply(c) }
func (e worldEngine) Step() ([]trace.Event, bool)                   { return e.w.Step() }

// NewWorldEngine drives w directly (headless serve, tests).
func NewWorldEngine(w *sim.World) Engine { return worldEngine{w} }

// Config configures a server.
type Config struct {
	// Listen is HOST:PORT of broker 1; broker N listens on PORT+N-1 (with
	// port 0 each broker gets a free port of its own).
	Listen string
	// MaxConnections bounds the open connections; 0 means
	// DefaultMaxConnections.
	MaxConnections int
	// Hold queues arriving requests until Release lets them in, one at a
	// time.
	Hold bool
	// OnEvents receives the events of every change, in order (headless
	// output); it is called on the loop.
	OnEvents func([]trace.Event)
	// Logf reports connections closed for a reason (malformed frames,
	// limits); nil discards.
	Logf func(format string, a ...any)
	// DataDir, when set, receives each partition's log as segment files
	// (DIR/orders-0/00000000000000000000.log), rewritten as they change.
	DataDir string
	// Manual leaves the engine to the caller's goroutine: nothing happens
	// until the caller calls Pump, and Do and Release run at once (the
	// lab, whose Update owns the session, pumps on a tick).
	Manual bool
}

// Server is a running `eoslab serve`.
type Server struct {
	cfg        Config
	eng        Engine
	start      time.Time
	lns        []net.Listener // by broker id - 1; nil while the broker is down
	addrs      []string       // advertised host:port by broker id - 1
	listenHost string
	hosts      []string
	ports      []int32
	in         chan input
	done       chan struct{}
	wg         sync.WaitGroup
	closed     sync.Once

	// Owned by the loop.
	conns    map[int]*conn
	nextConn int
	parked   int // connections whose fetch waits in purgatory
	held     []*arrival
	dataAt   int // -1 at shutdown: write the segments whatever the time
	err      error

	dataSteps   int // the world's step count when the segments were last written
	dataWritten time.Time
	dataDirty   bool
	dataSizes   map[string]int64

	// Guarded by mu: what other goroutines may ask, and the listeners
	// (the loop closes a dead broker's and listens again when it is back).
	mu       sync.Mutex
	nOpen    int
	heldSeen int
	closing  bool

	relistenAt time.Time // loop: when to try listening again after a failure
}

// input is something for the loop to do.
type input struct {
	arr  *arrival
	hang *conn
	fn   func(Engine)
	open *conn
}

// arrival is one request read off a socket.
type arrival struct {
	c    *conn
	data []byte
	hdr  sim.RequestHeader
	req  kmsg.Request
	at   time.Time
}

// conn is one client connection.
type conn struct {
	n      int
	broker int
	nc     net.Conn
	out    chan []byte
	gone   chan struct{}
	once   sync.Once
	// Owned by the loop.
	backlog []*arrival // waiting behind a fetch held in purgatory
	parked  *arrival
	until   time.Time
	hungUp  bool
	// --hold: requests of this connection still held, and whether the
	// client closed its socket behind them (the broker learns of the close
	// after reading what came before it).
	held     int
	hangLate bool
	spoke    bool // a request of it reached the engine, which knows it since
}

// Start listens on one port per broker of the engine's cluster and serves
// until Close. The engine's world must be fresh or served before.
func Start(cfg Config, eng Engine) (*Server, error) {
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	if cfg.Listen == "" {
		cfg.Listen = defaultListen
	}
	host, portText, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %v (want HOST:PORT)", cfg.Listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("--listen %q: port must be 0-65535", cfg.Listen)
	}
	if host == "" {
		// ":9092" names a port, not an address: loopback, as by default
		// (0.0.0.0 or another address listens there, if named).
		host = "127.0.0.1"
	}
	s := &Server{cfg: cfg, eng: eng, start: time.Now(), in: make(chan input, 1024), done: make(chan struct{}), conns: map[int]*conn{}}
	w := eng.World()
	w.KeepOutgoing(true)
	n := w.Cluster().Brokers
	if port != 0 && port+n-1 > 65535 {
		return nil, fmt.Errorf("--listen %q: brokers 1-%d need ports %d-%d", cfg.Listen, n, port, port+n-1)
	}
	s.listenHost = host
	adv := host
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		adv = "127.0.0.1"
	}
	for id := 1; id <= n; id++ {
		p := 0
		if port != 0 {
			p = port + id - 1
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			for _, l := range s.lns {
				l.Close()
			}
			return nil, fmt.Errorf("broker %d: %v", id, err)
		}
		s.lns = append(s.lns, ln)
		got := ln.Addr().(*net.TCPAddr).Port
		s.hosts, s.ports = append(s.hosts, adv), append(s.ports, int32(got))
		s.addrs = append(s.addrs, net.JoinHostPort(adv, strconv.Itoa(got)))
	}
	if !cfg.Manual {
		s.wg.Add(1)
		go s.loop()
	}
	for i, ln := range s.lns {
		s.wg.Add(1)
		go s.accept(ln, i+1)
	}
	return s, nil
}

// Addrs are the brokers' addresses, broker 1 first: what clients bootstrap from.
func (s *Server) Addrs() []string { return slices.Clone(s.addrs) }

// Close stops listening, closes every connection and stops the loop; it
// waits for every goroutine the server started. It returns the first
// error writing segment files met, if any.
func (s *Server) Close() error {
	s.closed.Do(func() {
		s.mu.Lock()
		s.closing = true
		for _, ln := range s.lns {
			if ln != nil {
				ln.Close()
			}
		}
		s.mu.Unlock()
		close(s.done)
		if s.cfg.Manual {
			s.shutdown()
		}
	})
	s.wg.Wait()
	return s.err
}

// Do runs fn on the loop with the engine (a command from the lab, a
// snapshot) and waits for it.
func (s *Server) Do(fn func(Engine)) {
	if s.cfg.Manual {
		fn(s.eng)
		return
	}
	ran := make(chan struct{})
	select {
	case s.in <- input{fn: func(e Engine) { fn(e); close(ran) }}:
	case <-s.done:
		return
	}
	select {
	case <-ran:
	case <-s.done:
	}
}

// Held is how many requests wait to be released (--hold).
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heldSeen
}

// Release lets the oldest held request in (--hold); it reports whether
// there was one.
func (s *Server) Release() bool {
	released := false
	s.Do(func(Engine) {
		if len(s.held) > 0 {
			a := s.held[0]
			s.held = s.held[1:]
			s.setHeld()
			a.c.held--
			s.submit(a)
			if a.c.held == 0 && a.c.hangLate {
				s.hangup(a.c)
			}
			released = true
		}
	})
	return released
}

func (s *Server) setHeld() {
	s.mu.Lock()
	s.heldSeen = len(s.held)
	s.mu.Unlock()
}

func (s *Server) logf(format string, a ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, a...)
	}
}

func (s *Server) accept(ln net.Listener, broker int) {
	defer s.wg.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		full := s.nOpen >= s.cfg.MaxConnections
		if !full {
			s.nOpen++
		}
		s.mu.Unlock()
		if full {
			s.logf("broker %d: refusing a connection from %s: %d connections are open (the limit)", broker, nc.RemoteAddr(), s.cfg.MaxConnections)
			nc.Close()
			continue
		}
		c := &conn{broker: broker, nc: nc, out: make(chan []byte, 64), gone: make(chan struct{})}
		select {
		case s.in <- input{open: c}:
		case <-s.done:
			nc.Close()
			return
		}
	}
}

// startConn runs on the loop: it numbers the connection and starts its
// reader and writer.
func (s *Server) startConn(c *conn) {
	s.nextConn++
	c.n = s.nextConn
	s.conns[c.n] = c
	s.wg.Add(2)
	go s.read(c)
	go s.write(c)
}

// read reads frames and hands each decoded request to the loop. A frame
// over socket.request.max.bytes or one that does not decode closes this
// connection only, with the reason logged.
func (s *Server) read(c *conn) {
	defer s.wg.Done()
	r := bufio.NewReaderSize(c.nc, 64<<10)
	for {
		data, err := ReadFrame(r, MaxRequestBytes)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.logf("broker %d: closing connection %d from %s: %v", c.broker, c.n, c.nc.RemoteAddr(), err)
			}
			s.hangUp(c)
			return
		}
		hdr, req, _, err := sim.DecodeRequest(data)
		if err != nil {
			s.logf("broker %d: closing connection %d from %s: %v", c.broker, c.n, c.nc.RemoteAddr(), err)
			s.hangUp(c)
			return
		}
		select {
		case s.in <- input{arr: &arrival{c: c, data: data, hdr: hdr, req: req, at: time.Now()}}:
		case <-s.done:
			return
		case <-c.gone:
			return
		}
	}
}

func (s *Server) hangUp(c *conn) {
	c.close()
	select {
	case s.in <- input{hang: c}:
	case <-s.done:
	}
}

func (c *conn) close() {
	c.once.Do(func() {
		close(c.gone)
		c.nc.Close()
	})
}

func (s *Server) write(c *conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		s.nOpen--
		s.mu.Unlock()
	}()
	bw := bufio.NewWriterSize(c.nc, 64<<10)
	for {
		select {
		case b := <-c.out:
			if _, err := bw.Write(b); err != nil {
				c.close()
				return
			}
			// Write what else is ready before flushing: one syscall for
			// several responses.
			for more := true; more; {
				select {
				case b := <-c.out:
					if _, err := bw.Write(b); err != nil {
						c.close()
						return
					}
				default:
					more = false
				}
			}
			if err := bw.Flush(); err != nil {
				c.close()
				return
			}
		case <-c.gone:
			return
		case <-s.done:
			c.close()
			return
		}
	}
}

// ReadFrame reads one size-prefixed frame of at most limit bytes.
func ReadFrame(r io.Reader, limit int) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int32(uint32(size[0])<<24 | uint32(size[1])<<16 | uint32(size[2])<<8 | uint32(size[3]))
	if n < 0 || int(n) > limit {
		return nil, fmt.Errorf("a frame of %d bytes is over socket.request.max.bytes (%d)", n, limit)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("a frame cut short: %w", err)
	}
	return data, nil
}

// nowMs is the wall clock as the engine's logical clock: milliseconds
// since the server started.
func (s *Server) nowMs() int64 { return time.Since(s.start).Milliseconds() }

// loop owns the engine.
func (s *Server) loop() {
	defer s.wg.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	defer s.shutdown()
	for {
		s.settle()
		wait := s.nextWake()
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
		select {
		case <-s.done:
			return
		case in := <-s.in:
			s.handle(in)
			s.drain()
		case <-timer.C:
		}
	}
}

// drain handles what else is waiting: a burst of requests costs one
// round of bookkeeping.
func (s *Server) drain() {
	for {
		select {
		case in := <-s.in:
			s.handle(in)
		default:
			return
		}
	}
}

// Pump (Manual) lets in what the sockets brought, performs what is due
// and writes the answers; it returns how soon it wants to run again.
func (s *Server) Pump() time.Duration {
	s.drain()
	s.settle()
	return s.nextWake()
}

func (s *Server) handle(in input) {
	switch {
	case in.open != nil:
		s.startConn(in.open)
	case in.arr != nil:
		a := in.arr
		if a.c.hungUp {
			return
		}
		if s.cfg.Hold {
			s.held = append(s.held, a)
			a.c.held++
			s.setHeld()
			return
		}
		s.submit(a)
	case in.hang != nil:
		if c := in.hang; c.held > 0 && !c.hungUp {
			// The client closed its socket behind requests still held: they
			// reached the broker, which reads them when they are released
			// and only then the close (Kafka handles the requests it has
			// read though their connection closed; the answers go nowhere).
			c.hangLate = true
			return
		}
		s.hangup(in.hang)
	case in.fn != nil:
		in.fn(s.eng)
	}
}

// submit hands an arrival to the engine, unless a fetch holds its
// connection or it is a fetch that would find nothing yet (then it waits
// in purgatory for data or its MaxWaitMillis).
func (s *Server) submit(a *arrival) {
	c := a.c
	if c.hungUp {
		return
	}
	if c.parked != nil {
		c.backlog = append(c.backlog, a)
		return
	}
	if f, ok := a.req.(*kmsg.FetchRequest); ok && s.eng.World().FetchWaits(c.broker, f) {
		c.parked, c.until = a, a.at.Add(time.Duration(f.MaxWaitMillis)*time.Millisecond)
		s.parked++
		return
	}
	c.spoke = true
	s.apply(&script.Arrive{Conn: c.n, Broker: c.broker, API: sim.APIName(a.hdr.Key), AtMs: s.at(), Data: a.data})
}

// at is the time of an input: the wall clock, never behind the world.
func (s *Server) at() int64 { return max(s.nowMs(), s.eng.World().Now()) }

func (s *Server) apply(c script.Command) {
	s.stepDue()
	evs, err := s.eng.Apply(c)
	if err != nil {
		s.logf("%s: %v", c.Verb(), err)
		if a, ok := c.(*script.Arrive); ok {
			if cn := s.conns[a.Conn]; cn != nil {
				cn.close()
			}
		}
		return
	}
	s.emit(evs)
}

func (s *Server) emit(evs []trace.Event) {
	if len(evs) > 0 && s.cfg.OnEvents != nil {
		s.cfg.OnEvents(evs)
	}
}

// Lead is how far the engine's clock may run ahead of the wall clock: an
// event due within it is performed at once rather than when a timer fires
// (a timer wakes late by up to a millisecond or so, and a produce's round
// trip through the replicas takes four 1 ms hops, so without a lead the
// timers' slop, not the cluster, would set the pace). Timeouts, which are
// seconds, fire at most this early.
const Lead = 3 // ms

// stepDue performs every event due by now (and the Lead).
func (s *Server) stepDue() {
	now := s.nowMs() + Lead
	w := s.eng.World()
	for {
		due, ok := w.NextDue()
		if !ok || due > now {
			return
		}
		evs, ok := s.eng.Step()
		s.emit(evs)
		if !ok {
			return
		}
		w = s.eng.World()
	}
}

func (s *Server) hangup(c *conn) {
	if c.hungUp {
		return
	}
	c.hungUp = true
	if c.parked != nil {
		s.parked--
	}
	c.backlog, c.parked = nil, nil
	if c.held > 0 {
		// The broker closed the connection (a fault): what it had not read
		// is gone with it.
		s.held = slices.DeleteFunc(s.held, func(a *arrival) bool { return a.c == c })
		c.held = 0
		s.setHeld()
	}
	delete(s.conns, c.n)
	if c.spoke {
		s.apply(&script.Hangup{Conn: c.n, AtMs: s.at()})
	}
}

// settle performs what is due, writes what the world owes the sockets,
// closes the sockets whose engine connection broke, and lets in the
// fetches whose data came or whose wait ended.
func (s *Server) settle() {
	for range 1000 {
		s.stepDue()
		w := s.eng.World()
		for _, o := range w.TakeOutgoing() {
			c := s.conns[o.Conn]
			if c == nil {
				continue
			}
			s.fillAddresses(o.Response)
			select {
			case c.out <- sim.AppendResponse(nil, o.CorrelationID, o.Response):
			case <-c.gone:
			}
		}
		for _, n := range w.ExternalBroken() {
			if c := s.conns[n]; c != nil {
				// A lost message breaks the connection: the socket closes,
				// and what follows on it is dropped; the client reconnects.
				c.close()
				s.hangup(c)
			} else {
				s.apply(&script.Hangup{Conn: n, AtMs: s.at()})
			}
		}
		if !s.unpark() {
			break
		}
	}
	s.syncListeners()
	s.writeData()
}

// relistenEvery is how soon a broker that came back tries its port again
// when listening failed (another process took it meanwhile).
const relistenEvery = 100 * time.Millisecond

// syncListeners makes the ports follow the brokers: a broker that is down
// (kill broker) listens on nothing, so that a client connecting to it is
// refused, as by a Kafka broker that is not running, and listens again on
// its port once it is back.
func (s *Server) syncListeners() {
	w := s.eng.World()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return
	}
	for i, ln := range s.lns {
		id := i + 1
		alive := w.BrokerAlive(id)
		switch {
		case !alive && ln != nil:
			ln.Close() // its accept returns
			s.lns[i] = nil
		case alive && ln == nil && !time.Now().Before(s.relistenAt):
			nl, err := net.Listen("tcp", net.JoinHostPort(s.listenHost, strconv.Itoa(int(s.ports[i]))))
			if err != nil {
				s.logf("broker %d: listening again: %v", id, err)
				s.relistenAt = time.Now().Add(relistenEvery)
				continue
			}
			s.lns[i] = nl
			s.wg.Add(1)
			go s.accept(nl, id)
		}
	}
}

// unpark submits parked fetches that can go; it reports whether any did.
func (s *Server) unpark() bool {
	if s.parked == 0 {
		return false // the usual case: no fetch waits
	}
	now := time.Now()
	any := false
	for _, n := range s.connOrder() {
		c := s.conns[n]
		if c.parked == nil {
			continue
		}
		f := c.parked.req.(*kmsg.FetchRequest)
		if now.Before(c.until) && s.eng.World().FetchWaits(c.broker, f) {
			continue
		}
		a := c.parked
		c.parked = nil
		s.parked--
		s.apply(&script.Arrive{Conn: c.n, Broker: c.broker, API: "Fetch", AtMs: s.at(), Data: a.data})
		for len(c.backlog) > 0 && c.parked == nil {
			b := c.backlog[0]
			c.backlog = c.backlog[1:]
			s.submit(b)
		}
		any = true
	}
	return any
}

func (s *Server) connOrder() []int {
	out := make([]int, 0, len(s.conns))
	for n := range s.conns {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// nextWake is how long the loop may sleep: until the next due event or
// the end of a parked fetch's wait.
func (s *Server) nextWake() time.Duration {
	wait := time.Hour
	if due, ok := s.eng.World().NextDue(); ok {
		wait = min(wait, time.Duration(due-Lead)*time.Millisecond-time.Since(s.start))
	}
	for _, c := range s.conns {
		if s.parked > 0 && c.parked != nil {
			wait = min(wait, time.Until(c.until))
		}
	}
	if s.dataDirty {
		wait = min(wait, time.Until(s.dataWritten.Add(dataEvery)))
	}
	return max(wait, 0)
}

// fillAddresses writes the brokers' host and port into the answers that
// name brokers: the world knows broker ids, the server where they listen.
func (s *Server) fillAddresses(r kmsg.Response) {
	addr := func(id int32) (string, int32) {
		if id < 1 || int(id) > len(s.hosts) {
			return "", -1
		}
		return s.hosts[id-1], s.ports[id-1]
	}
	switch r := r.(type) {
	case *kmsg.MetadataResponse:
		for i := range r.Brokers {
			r.Brokers[i].Host, r.Brokers[i].Port = addr(r.Brokers[i].NodeID)
		}
	case *kmsg.FindCoordinatorResponse:
		if r.NodeID >= 0 {
			r.Host, r.Port = addr(r.NodeID)
		}
		for i := range r.Coordinators {
			if c := &r.Coordinators[i]; c.NodeID >= 0 {
				c.Host, c.Port = addr(c.NodeID)
			}
		}
	}
}

func (s *Server) shutdown() {
	for _, c := range s.conns {
		c.close()
	}
	s.dataAt = -1
	s.writeData()
}

// Serve runs a server until ctx is done, then closes it.
func Serve(ctx context.Context, cfg Config, eng Engine) error {
	s, err := Start(cfg, eng)
	if err != nil {
		return err
	}
	<-ctx.Done()
	return s.Close()
}

// Cluster returns the command that creates the served cluster: the
// default three brokers with the topic given, and transaction version 1
// (see sim.ServedAPIs).
func Cluster(topic string, partitions int) *script.Cluster {
	// broker.latency.ms=0: the brokers are in one process, as brokers on
	// one host, whose replication crosses in microseconds: an acks=all
	// produce is answered in the millisecond it arrives, as by Kafka there.
	c, err := script.ParseLine(fmt.Sprintf("cluster topic=%s partitions=%d transaction.version=1 broker.latency.ms=0", topic, partitions))
	if err != nil {
		panic(err) // callers validate topic and partitions first
	}
	return c.(*script.Cluster)
}

// NewWorld is a fresh world with the served cluster.
func NewWorld(seed uint64, topic string, partitions int) (*sim.World, error) {
	if _, err := script.ParseLine(fmt.Sprintf("cluster topic=%s partitions=%d", topic, partitions)); err != nil {
		return nil, err
	}
	w := sim.New(seed)
	if _, err := w.Apply(Cluster(topic, partitions)); err != nil {
		return nil, err
	}
	return w, nil
}

// Apply performs a command of the command language on the served world
// at the present (a fault, a failover), on the loop; its events go to
// OnEvents like every other change's.
func (s *Server) Apply(c script.Command) ([]trace.Event, error) {
	var evs []trace.Event
	var err error
	done := false
	s.Do(func(e Engine) {
		s.stepDue()
		evs, err = e.Apply(c)
		if err == nil {
			s.emit(evs)
		}
		done = true
	})
	if !done {
		return nil, errors.New("the server is closed")
	}
	return evs, err
}
