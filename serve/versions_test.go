package serve

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	"github.com/eoslab/eoslab/engine/sim"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Every request kmsg can encode — every API key at every version it
// knows, and one version past — is answered on the same connection, which
// stays open: a served API at a served version with an answer that reads
// at that version and says nothing of UNSUPPORTED_VERSION, anything else
// with UNSUPPORTED_VERSION (35) wherever the answer has an error code. An
// API key Kafka does not have is answered too.
func TestEveryAPIAndVersionIsAnswered(t *testing.T) {
	s, _ := start(t, Config{})
	c := dial(t, s.Addrs()[0])
	c.SetDeadline(time.Now().Add(60 * time.Second))
	r := bufio.NewReader(c)
	corr := int32(0)
	ask := func(key, version int16, req kmsg.Request) []byte {
		t.Helper()
		corr++
		var frame []byte
		if req != nil {
			frame = rawRequest(req, corr, "versions")
		} else { // a bare header
			frame = binary.BigEndian.AppendUint32(nil, 0)
			frame = binary.BigEndian.AppendUint16(frame, uint16(key))
			frame = binary.BigEndian.AppendUint16(frame, uint16(version))
			frame = binary.BigEndian.AppendUint32(frame, uint32(corr))
			if key != 7 || version != 0 {
				frame = binary.BigEndian.AppendUint16(frame, 0xffff) // null client id
			}
			binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
		}
		if _, err := c.Write(frame); err != nil {
			t.Fatalf("key %d v%d: %v (the connection was closed)", key, version, err)
		}
		resp, err := ReadFrame(r, MaxRequestBytes)
		if err != nil {
			t.Fatalf("key %d v%d: no answer: %v", key, version, err)
		}
		if got := int32(binary.BigEndian.Uint32(resp)); got != corr {
			t.Fatalf("key %d v%d: answer for correlation id %d, want %d", key, version, got, corr)
		}
		return resp[4:]
	}
	served := 0
	for key := int16(0); key <= kmsg.MaxKey; key++ {
		proto := kmsg.RequestForKey(key)
		if proto == nil {
			continue
		}
		var rng sim.APIRange
		isServed := false
		for _, a := range sim.ServedAPIs {
			if a.Key == key {
				rng, isServed = a, true
			}
		}
		for v := int16(0); v <= proto.MaxVersion()+1; v++ {
			if v > proto.MaxVersion() || key == 7 && v == 0 {
				// kmsg cannot encode it (ControlledShutdown v0's header has no
				// client id, and kmsg frames it wrongly): only the header.
				ask(key, v, nil)
				continue
			}
			req := kmsg.RequestForKey(key)
			if d, ok := req.(interface{ Default() }); ok {
				d.Default()
			}
			req.SetVersion(v)
			if p, ok := req.(*kmsg.ProduceRequest); ok {
				p.Acks = -1 // acks=0 is never answered, as in Kafka
			}
			body := ask(key, v, req)
			resp := req.ResponseKind()
			resp.SetVersion(v)
			if resp.IsFlexible() && key != 18 {
				body = body[1:]
			}
			if key == 18 && !(isServed && v >= rng.Min && v <= rng.Max) {
				resp.SetVersion(0) // Kafka answers an unknown ApiVersions at v0
			}
			if err := resp.ReadFrom(body); err != nil {
				t.Errorf("%s v%d: the answer does not read: %v", kmsg.NameForKey(key), v, err)
				continue
			}
			codes := wireErrorCodes(resp)
			inRange := isServed && v >= rng.Min && v <= rng.Max
			switch {
			case inRange && contains(codes, 35):
				t.Errorf("%s v%d is served but answered UNSUPPORTED_VERSION", kmsg.NameForKey(key), v)
			case !inRange && len(codes) > 0 && !contains(codes, 35):
				t.Errorf("%s v%d is not served but answered %v", kmsg.NameForKey(key), v, codes)
			}
			if inRange {
				served++
			}
		}
	}
	ask(1000, 0, nil)
	var want int
	for _, a := range sim.ServedAPIs {
		want += int(a.Max-a.Min) + 1
	}
	if served != want {
		t.Errorf("%d served versions answered, want %d", served, want)
	}
	// Still the same connection.
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(12)
	if _, err := c.Write(rawRequest(md, 7, "versions")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFrame(r, MaxRequestBytes); err != nil {
		t.Fatalf("after every version: %v", err)
	}
}

func contains(xs []int16, x int16) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// wireErrorCodes collects the ErrorCode fields of a response that its
// version puts on the wire (a field kmsg has but the version lacks does
// not change the encoding).
func wireErrorCodes(resp kmsg.Response) []int16 {
	var fields []reflect.Value
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			if f := v.FieldByName("ErrorCode"); f.IsValid() && f.Kind() == reflect.Int16 {
				fields = append(fields, f)
			}
			for i := range v.NumField() {
				if f := v.Field(i); f.Kind() == reflect.Slice {
					for j := range f.Len() {
						walk(f.Index(j))
					}
				}
			}
		}
	}
	walk(reflect.ValueOf(resp))
	base := resp.AppendTo(nil)
	var out []int16
	for _, f := range fields {
		was := f.Int()
		f.SetInt(was ^ 0x5a5a)
		onWire := !bytes.Equal(base, resp.AppendTo(nil))
		f.SetInt(was)
		if onWire {
			out = append(out, int16(was))
		}
	}
	return out
}
