package serve

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawRequest encodes a request frame with kmsg.
func rawRequest(req kmsg.Request, corr int32, clientID string) []byte {
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID))
	return f.AppendRequest(nil, req, corr)
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return c
}

// roundTrip sends one request and reads the response into resp.
func roundTrip(t *testing.T, c net.Conn, req kmsg.Request, resp kmsg.Response) int32 {
	t.Helper()
	if _, err := c.Write(rawRequest(req, 42, "raw")); err != nil {
		t.Fatal(err)
	}
	frame, err := ReadFrame(bufio.NewReader(c), MaxRequestBytes)
	if err != nil {
		t.Fatal(err)
	}
	corr := int32(binary.BigEndian.Uint32(frame))
	body := frame[4:]
	if resp.IsFlexible() && resp.Key() != 18 {
		body = body[1:] // no tagged fields in our headers
	}
	if err := resp.ReadFrom(body); err != nil {
		t.Fatalf("decoding %T: %v", resp, err)
	}
	return corr
}

// An ApiVersions at a version the cluster does not speak is answered at
// version 0 with UNSUPPORTED_VERSION and the versions it does speak; any
// other request at an unsupported version gets UNSUPPORTED_VERSION too,
// and the connection stays open.
func TestUnsupportedVersionsAreAnswered(t *testing.T) {
	s, _ := start(t, Config{})
	c := dial(t, s.Addrs()[0])
	av := kmsg.NewPtrApiVersionsRequest()
	av.SetVersion(4)
	av.ClientSoftwareName, av.ClientSoftwareVersion = "raw", "1"
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.SetVersion(0)
	if corr := roundTrip(t, c, av, resp); corr != 42 || resp.ErrorCode != 35 || len(resp.ApiKeys) != len(sim.ServedAPIs) {
		t.Fatalf("ApiVersions v4: corr %d error %d, %d keys", corr, resp.ErrorCode, len(resp.ApiKeys))
	}
	// Produce v2 (message sets before Record Batch v2) is not served.
	pr := kmsg.NewPtrProduceRequest()
	pr.SetVersion(2)
	pr.Acks, pr.TimeoutMillis = -1, 1000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = "orders"
	pp := kmsg.NewProduceRequestTopicPartition()
	pt.Partitions = append(pt.Partitions, pp)
	pr.Topics = append(pr.Topics, pt)
	presp := kmsg.NewPtrProduceResponse()
	presp.SetVersion(2)
	roundTrip(t, c, pr, presp)
	if len(presp.Topics) != 1 || presp.Topics[0].Partitions[0].ErrorCode != 35 {
		t.Fatalf("Produce v2 answered %+v, want UNSUPPORTED_VERSION", presp.Topics)
	}
	// Still open: a supported request works.
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(9)
	mresp := kmsg.NewPtrMetadataResponse()
	mresp.SetVersion(9)
	roundTrip(t, c, md, mresp)
	if len(mresp.Brokers) != 3 || len(mresp.Topics) != 1 || len(mresp.Topics[0].Partitions) != 3 {
		t.Fatalf("metadata: %d brokers, topics %+v", len(mresp.Brokers), mresp.Topics)
	}
}

// closedByServer waits until the server closes c.
func closedByServer(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server kept the connection open")
	}
}

// A malformed frame or one over socket.request.max.bytes closes that
// connection, with the reason logged; a client on another connection is
// not disturbed.
func TestMalformedFramesCloseOnlyTheirConnection(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	s, _ := start(t, Config{Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, strings.TrimSpace(f))
	}})
	c := ctx(t)
	good := client(t, s, kgo.ClientID("good"), kgo.DefaultProduceTopic("orders"))
	if err := good.ProduceSync(c, &kgo.Record{Value: []byte("before")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"too large":     {0x7f, 0xff, 0xff, 0xff},
		"negative size": {0xff, 0xff, 0xff, 0xff},
		"short header":  {0, 0, 0, 3, 0, 18, 0},
		"bad body":      append([]byte{0, 0, 0, 14, 0, 3, 0, 9, 0, 0, 0, 1, 0, 0}, 0xff, 0xff, 0xff, 0x7f),
		"bad client id": {0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, 0x7f, 0},
	}
	for name, frame := range cases {
		raw := dial(t, s.Addrs()[1])
		if _, err := raw.Write(frame); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "short header" || name == "bad body" {
			raw.(*net.TCPConn).CloseWrite()
		}
		closedByServer(t, raw)
	}
	if err := good.ProduceSync(c, &kgo.Record{Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatalf("the other client was disturbed: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logs) < 4 {
		t.Errorf("want a logged reason per closed connection, got %q", logs)
	}
}

// Connections past the limit are refused; closing one makes room.
func TestConnectionsAreBounded(t *testing.T) {
	s, _ := start(t, Config{MaxConnections: 2})
	a, b := dial(t, s.Addrs()[0]), dial(t, s.Addrs()[0])
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(9)
	for _, c := range []net.Conn{a, b} {
		resp := kmsg.NewPtrMetadataResponse()
		resp.SetVersion(9)
		roundTrip(t, c, md, resp)
	}
	closedByServer(t, dial(t, s.Addrs()[2]))
	a.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c := dial(t, s.Addrs()[0])
		c.Write(rawRequest(md, 1, "x"))
		c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := ReadFrame(bufio.NewReader(c), MaxRequestBytes); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no room after a connection closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A batch over message.max.bytes is refused with MESSAGE_TOO_LARGE, and
// the lab says which broker refused whose batch (a kafka.refuse event,
// one of the decisions headless serve prints).
func TestMessageMaxBytes(t *testing.T) {
	s, eng := start(t, Config{})
	eng.World().SetTracing(true)
	c := ctx(t)
	p := client(t, s, kgo.ClientID("big"), kgo.DefaultProduceTopic("orders"), kgo.ProducerBatchMaxBytes(4<<20), kgo.RecordRetries(0),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	err := p.ProduceSync(c, &kgo.Record{Value: bytes.Repeat([]byte("x"), 2<<20)}).FirstErr()
	if err == nil || !strings.Contains(err.Error(), "MESSAGE_TOO_LARGE") {
		t.Fatalf("a 2 MiB batch: %v, want MESSAGE_TOO_LARGE", err)
	}
	s.Do(func(e Engine) {
		for _, ev := range e.World().Trace().All() {
			if ev.Kind == "kafka.refuse" && ev.Str("client") == "big" && ev.Str("error") == "MESSAGE_TOO_LARGE" && ev.Str("partition") != "" {
				return
			}
		}
		t.Error("no kafka.refuse event for big's batch")
	})
}

// The brokers listen on loopback unless an address is named: by default
// (127.0.0.1:9092), and with a port alone (":0"); an unspecified address
// named explicitly (0.0.0.0) listens on every interface and is advertised
// as loopback.
func TestListenIsLoopbackUnlessNamed(t *testing.T) {
	host, _, _ := net.SplitHostPort(defaultListen)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Fatalf("default listen %s is not loopback", defaultListen)
	}
	for listen, loopback := range map[string]bool{":0": true, "127.0.0.1:0": true, "0.0.0.0:0": false} {
		w, err := NewWorld(1, "orders", 3)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Start(Config{Listen: listen}, NewWorldEngine(w))
		if err != nil {
			t.Fatal(err)
		}
		for i, ln := range s.lns {
			ip := ln.Addr().(*net.TCPAddr).IP
			if ip.IsLoopback() != loopback {
				t.Errorf("--listen %s: broker %d listens on %s", listen, i+1, ip)
			}
			if adv := s.Addrs()[i]; !strings.HasPrefix(adv, "127.0.0.1:") {
				t.Errorf("--listen %s: broker %d advertised as %s", listen, i+1, adv)
			}
		}
		s.Close()
	}
}
