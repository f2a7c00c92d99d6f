package main

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzConfigFile feeds config loading any file: it never panics, every
// problem names the file (a YAML one with a line) and is printable, and
// the options it resolves are always usable.
func FuzzConfigFile(f *testing.F) {
	f.Add([]byte(defaultConfigText()))
	f.Add([]byte("theme: light\nascii: true\nmouse: false\nspeed: 0.5\nlessons_dir: /tmp\nseed: 7\n"))
	f.Add([]byte("theme: dark\nmouse: [true\n"))
	f.Add([]byte("seed: 99999999999999999999\nspeed: .nan\nmouse: [true]\nascii: {a: 1}\n"))
	f.Add([]byte("seed: 1\nseed: 2\nspeeed: 3\nascii: !!int x\n"))
	f.Add([]byte("a: &x [1]\nb: *x\n- c\n\x1b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range settings {
			if _, ok := os.LookupEnv(envName(s.key)); ok {
				t.Skip("EOSLAB_* is set")
			}
		}
		c := newConfig(io.Discard)
		err := c.use("f.yaml", data)
		o, cerr := c.checked()
		for _, e := range []error{err, cerr} {
			if e == nil {
				continue
			}
			var ce *configError
			if !errors.As(e, &ce) || len(ce.problems) == 0 {
				t.Fatalf("%T %v", e, e)
			}
			for _, p := range ce.problems {
				if !strings.HasPrefix(p, "config file f.yaml") && !strings.Contains(p, "(file f.yaml:") {
					t.Fatalf("a problem that does not name the file: %q", p)
				}
				printable(t, p)
			}
		}
		if math.IsNaN(o.Speed) || o.Speed <= 0 || o.Speed > 1000 || o.Theme == "" {
			t.Fatalf("unusable options %+v", o)
		}
	})
}

// FuzzProgressFile feeds the progress file's reader any bytes: it never
// panics, and what it accepts could have been written by the lab and
// reads back the same once written.
func FuzzProgressFile(f *testing.F) {
	f.Add([]byte(`{"done":[1,2],"chapter":3,"step":4,"scores":{"2":{"right":1,"asked":2,"steps":{"3":true,"5":false}}}}`))
	f.Add([]byte(`{"done":[5],"chapter":5,"step":2}`))
	f.Add([]byte(`{"done":[1],"chapter":1,"step":"2"}`))
	f.Add([]byte(`{"done":[],"chapter":0,"step":0,"scores":{"4":{"right":3,"asked":2}}}`))
	f.Add([]byte(`{"done":[1,2],"chap`))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodeProgress(data)
		if err != nil {
			return
		}
		if err := checkProgress(p); err != nil {
			t.Fatalf("accepted, yet: %v", err)
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeProgress(out)
		again, _ := json.Marshal(back)
		if err != nil || string(again) != string(out) {
			t.Fatalf("written %s, read back %s, %v", out, again, err)
		}
	})
}

// printable fails unless msg is short, valid UTF-8 and free of control
// characters: safe to print on a terminal.
func printable(t *testing.T, msg string) {
	t.Helper()
	if len(msg) > 2000 {
		t.Fatalf("message of %d bytes: %.200q", len(msg), msg)
	}
	if !utf8.ValidString(msg) {
		t.Fatalf("message is not UTF-8: %q", msg)
	}
	for _, r := range msg {
		if !unicode.IsPrint(r) {
			t.Fatalf("message holds %U: %q", r, msg)
		}
	}
}
