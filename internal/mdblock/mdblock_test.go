package mdblock

import (
	"reflect"
	"testing"
)

func TestBlocks(t *testing.T) {
	src := "# A\n\n```\nsyntax\n```\n\ntext\n\n```eos\nx\n\ny\n```\n## B\n" +
		"````markdown\n```eos\ninner\n```\n````\n  ```sh\n  eoslab\n  ```\n```text\nopen"
	got := Blocks(src)
	want := []Block{
		{Tag: "", Line: 3, Lines: []string{"syntax"}, Heading: "A", First: true},
		{Tag: "eos", Line: 9, Lines: []string{"x", "", "y"}, Heading: "A"},
		{Tag: "markdown", Line: 15, Lines: []string{"```eos", "inner", "```"}, Heading: "B", First: true},
		{Tag: "sh", Line: 20, Lines: []string{"  eoslab"}, Heading: "B"},
		{Tag: "text", Line: 23, Lines: []string{"open"}, Heading: "B"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%#v\nwant\n%#v", got, want)
	}
	if s := got[1].Text(); s != "x\n\ny\n" {
		t.Fatalf("Text: %q", s)
	}
}
