// Package mdblock reads the fenced code blocks of a Markdown page, for the
// tests that hold the documentation to the code: the examples of a page
// must parse, its syntax lines must be the parser's, its commands must
// exist.
package mdblock

import "strings"

// Block is one fenced code block.
type Block struct {
	Tag     string   // the info string (```eos gives "eos"), "" for none
	Line    int      // the line of the opening fence, from 1
	Lines   []string // the content, fences excluded
	Heading string   // the text of the nearest heading above, "" for none
	First   bool     // the first block under that heading
}

// Blocks returns the page's fenced blocks in order. A fence is a line of
// three or more backticks, optionally indented, followed by the info
// string; it is closed by a line of at least as many backticks and
// nothing else, so a page can show a Markdown file with fences inside by
// opening with four. A block left open at the end runs to the end.
func Blocks(src string) []Block {
	var out []Block
	var cur *Block
	fence, heading, underHeading := 0, "", 0
	for i, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		n := len(t) - len(strings.TrimLeft(t, "`"))
		if cur != nil {
			if n >= fence && strings.Trim(t, "`") == "" {
				out = append(out, *cur)
				cur = nil
				continue
			}
			cur.Lines = append(cur.Lines, line)
			continue
		}
		if n >= 3 {
			fence = n
			underHeading++
			cur = &Block{Tag: strings.TrimSpace(t[n:]), Line: i + 1, Heading: heading, First: underHeading == 1}
			continue
		}
		if strings.HasPrefix(line, "#") {
			heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
			underHeading = 0
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// Text is the block's content as one string, each line ended by a newline.
func (b Block) Text() string {
	if len(b.Lines) == 0 {
		return ""
	}
	return strings.Join(b.Lines, "\n") + "\n"
}
