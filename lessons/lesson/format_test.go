package lesson

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
)

const head = "---\nchapter: 3\ntitle: T\nsummary: S\n---\n"

// Each kind of mistake is reported with its line, and nothing is loaded.
func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"## S\n", "l.md:1: a lesson starts with front matter"},
		{"---\nchapter: x\ntitle: T\nsummary: S\n---\n## S\n", `l.md:2: chapter must be a positive number, got "x"`},
		{"---\nchapter: 1\ntitle: T\n---\n## S\n", "l.md:1: front matter: summary: is missing"},
		{"---\nchapter: 1\ntitel: T\nsummary: S\n---\n## S\n", `l.md:3: front matter: unknown key "titel", did you mean "title"?`},
		{"---\nchapter: 1\n", `l.md:1: front matter is not closed by a "---" line`},
		{head, "l.md:6: the lesson has no steps"},
		{head + "## S\npanels: bytes, windw\n", `l.md:7: unknown panel "windw", did you mean "window"?`},
		{head + "## S\npanels: bytes\nfocus: window\n", `l.md:6: focus "window" is not among the step's panels`},
		{head + "## S\n\n```eos\nproducer p1\nsned p1 orders-0 1\n```\n", `l.md:10: unknown command "sned", did you mean "send"?`},
		{head + "## S\n\n```eos\nproducer p1\n", "l.md:8: code block is not closed"},
		{head + "## S\n```expect\nfoo.bar == 1\n```\n", `l.md:8: expect: unknown path "foo.bar"`},
		{head + "## S\n```expect\npartitions.orders-0.lso = 1\n```\n", `l.md:8: expect: "partitions.orders-0.lso = 1": unknown operator "="`},
		{head + "## S\n```expect\nproducers.p1.epoch == 1\n```\n", `l.md:8: expect: producers have no field "epoch"`},
		{head + "## S\n```eos\nproducer p1\n```\n```expect\nproducers.p2.producer_id == 1\n```\n", `l.md:11: expect "producers.p2.producer_id == 1": no producer "p2" is created in this lesson, did you mean "p1"?`},
		{head + "## S\n```expect\npartitions.orders-9.lso == 0\n```\n", `l.md:8: expect "partitions.orders-9.lso == 0": no partition "orders-9" in this lesson's cluster`},
		{head + "## S\n```predict\n? Q\n- only => decision.outcome == append\n```\n```reveal\nrun\n```\n", "l.md:7: predict: a prediction needs at least two choices"},
		{head + "## S\n```predict\n? Q\n- a => decision.outcome == append\n- b => decision.outcome == duplicate\n```\n", "l.md:7: predict: the step needs a ```reveal block"},
		{head + "## S\n```predict\n? Q\n- a decision.outcome == append\n```\n", `l.md:9: predict: a choice is "- text => predicate"`},
		{head + "## S\n```goal\n- x => step >= 1\n```\n", "l.md:6: challenge: no ```solution block"},
		{head + "```eos\nrun\n```\n## S\n", "l.md:6: a ```eos block must be inside a step"},
		// A mistyped block would become narration and its checks would
		// never run: it is an error with the block meant.
		{head + "## S\n```eos\nproducer p1\n```\n```expectt\nproducers.p1.producer_id == 9\n```\n", "l.md:10: unknown block \"expectt\", did you mean ```expect?"},
		{head + "## S\n```Expect\nstep == 1\n```\n", "l.md:7: unknown block \"Expect\", did you mean ```expect? (block names are lower case)"},
		{head + "## S\n```EOS\nrun\n```\n", "l.md:7: unknown block \"EOS\", did you mean ```eos?"},
		{head + "## S\n```hints\nLook.\n```\n", "l.md:7: unknown block \"hints\", did you mean ```hint?"},
		{head + "## S\n```predcit\n? Q\n```\n", "l.md:7: unknown block \"predcit\", did you mean ```predict?"},
		{head + "## S\n```solutoin\nrun\n```\n", "l.md:7: unknown block \"solutoin\", did you mean ```solution?"},
		{head + "## S\n```reveall\nrun\n```\n", "l.md:7: unknown block \"reveall\", did you mean ```reveal?"},
		{head + "## S\n```gaol\n- x => step >= 1\n```\n", "l.md:7: unknown block \"gaol\", did you mean ```goal?"},
		{head + "## S\n```eso\nrun\n```\n", "l.md:7: unknown block \"eso\", did you mean ```eos?"},
		{head + "```expct\nstep == 1\n```\n## S\n", "l.md:6: unknown block \"expct\", did you mean ```expect?"},
		{head + "## S\n```expect after the commit\nstep == 1\n```\n", "l.md:7: ```expect takes nothing after its name, got \"after the commit\""},
		// What a file's errors echo of it is bounded and printable.
		{head + "## S\n```predict\n" + strings.Repeat("x", 1<<20) + "\n```\n", `l.md:8: predict: expected "? question" or "- choice => predicate", got "` + strings.Repeat("x", script.MaxQuoted) + `"…`},
		{"---\nchapter: 1\ntitle: T\nsummary: S\n\x1b[2J\n---\n## S\n", `l.md:5: front matter: expected key: value, got "\x1b[2J"`},
		{head + "## S\n```expect\nproducers.\xff.producer_id == 1\n```\n", `l.md:8: expect "producers.\xff.producer_id == 1": no producer "\xff"`},
	}
	for _, c := range cases {
		l, err := Parse("l.md", []byte(c.src))
		var errs Errors
		if l != nil || !errors.As(err, &errs) {
			t.Errorf("%q: got lesson %v, error %v; want the error %q", c.src, l != nil, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

func TestParseExpectValues(t *testing.T) {
	cases := []struct {
		in   string
		want any
	}{
		{`a.b == 3`, 3.0}, {`a.b == "x y"`, "x y"}, {`a.b == word`, "word"}, {`a.b == [1, 2]`, []any{1.0, 2.0}},
		{`a.b == null`, nil}, {`a.b == true`, true},
	}
	for _, c := range cases {
		v, err := parseValue(strings.TrimSpace(strings.SplitN(c.in, "==", 2)[1]))
		if err != nil || !equal(v, c.want) {
			t.Errorf("%s: got %#v, %v; want %#v", c.in, v, err, c.want)
		}
	}
}

// The engine marks a prediction: the example's retry is a duplicate, so
// only the second choice is right — and it would be another choice if the
// engine behaved differently (the third step of a plain producer).
func TestPredictionMarkedByEngine(t *testing.T) {
	src, err := os.ReadFile("../../assets/lessons/example.md")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse("example.md", src)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlayer(l, 1)
	reports, ok := p.PlayAll()
	if !ok {
		t.Fatalf("example lesson fails: %v", reports[len(reports)-1].Failures(l.File))
	}
	marks := []bool{}
	for _, c := range reports[2].Choices {
		marks = append(marks, c.Right)
	}
	if len(marks) != 3 || marks[0] || !marks[1] || marks[2] {
		t.Fatalf("choices marked %v, want only the duplicate right", marks)
	}

	// The same lesson with a plain producer: now the engine appends, and
	// the first choice is the right one.
	plain := strings.Replace(string(src), "producer p1\n", "producer p1 plain\n", 1)
	l2, err := Parse("plain.md", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	reports, _ = NewPlayer(l2, 1).PlayAll()
	if c := reports[2].Choices; !c[0].Right || c[1].Right {
		t.Fatalf("with a plain producer the choices are marked %v %v", c[0].Right, c[1].Right)
	}
	if reports[0].OK() || reports[2].OK() {
		// Step 1 expects an idempotent producer, step 3 no duplicate:
		// both checks must fail now.
		t.Fatalf("a plain producer passed the idempotent lesson's checks")
	}
}

// The operator is looked for after the path: a name that spells an
// operator ("contains") is part of the path.
func TestParseExpectOperatorAfterPath(t *testing.T) {
	cases := []struct {
		in   string
		path string
		op   string
		want any
	}{
		{`consumers.contains.values contains "x"`, "consumers.contains.values", "contains", "x"},
		{`producers.p==.producer_id == 1`, "producers.p==.producer_id", "==", 1.0},
		{`partitions.orders-0.lso >= 3`, "partitions.orders-0.lso", ">=", 3.0},
	}
	for _, c := range cases {
		e, err := ParseExpect(c.in)
		if err != nil || strings.Join(e.Path, ".") != c.path || e.Op != c.op || !equal(e.Value, c.want) {
			t.Errorf("ParseExpect(%q) = %q %q %#v, %v", c.in, e.Path, e.Op, e.Value, err)
		}
	}
}
