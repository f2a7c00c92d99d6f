package script

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	seeds := append([]string{}, roundTripCorpus...)
	seeds = append(seeds,
		strings.Join(roundTripCorpus, "\n"),
		"# comment only\n\n",
		"cluster brokers=3\r\nproducer p1\r\nsend p1 orders-0 3\r\nrun\r\n",
		"sned p1 orders-0 1\nrestart brokr 1\nproducer p1 ack=1",
		"send p1 orders-0\nsend p1 orders-0 x\nsend p1 orders 1",
		"lose request p1 seq=3\ncluster brokers=3 brokers=3\ncluster foo=1",
		"cluster transaction.version=3\nadvance 0s\nadvance 5x\nsend p1 orders-0 1 extra",
		`send p1 orders-0 1 value="unterminated`,
		`send p1 orders-0 1 value="a\"b\\c" key="#"`,
		"\uFEFFrun\n\xff\xfe send",
		"producer p1 transactional=a transactional.id=b",
	)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		cmds, err := Parse("f", src)
		if err != nil {
			checkErrors(t, src, err)
			return
		}
		lines := make([]string, len(cmds))
		for i, c := range cmds {
			lines[i] = Format(c)
		}
		text := strings.Join(lines, "\n")
		back, err := Parse("f", []byte(text))
		if err != nil {
			t.Fatalf("formatted script does not parse: %v\nsource: %q\nformatted: %q", err, src, text)
		}
		if len(back) != len(cmds) {
			t.Fatalf("re-parse gave %d commands, want %d\nformatted: %q", len(back), len(cmds), text)
		}
		for i := range cmds {
			if !reflect.DeepEqual(stripPositions(back[i]), stripPositions(cmds[i])) {
				t.Fatalf("command %d changed: %#v, want %#v\nformatted: %q", i, back[i], cmds[i], lines[i])
			}
		}
	})
}

// checkErrors verifies that a failed parse reports usable positions.
func checkErrors(t *testing.T, src []byte, err error) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
	}
	lines := strings.Count(string(src), "\n") + 1
	for _, e := range list {
		if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Pos.Line > lines+1 {
			t.Fatalf("bad position %v for %d lines: %v", e.Pos, lines, e)
		}
		if e.File != "f" || e.Msg == "" {
			t.Fatalf("incomplete error %#v", e)
		}
	}
}
