package markdown

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/ui/widget/box"
)

// Reflow wraps rendered Markdown to width cells (box.Reflow: at spaces
// only, styles closed at each line end). A line that starts with an
// indent or a list mark ("• ", "1. ") continues under its text, not under
// the mark.
func Reflow(s string, width int) string {
	if width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, box.Reflow(l, width, hang(l, width))...)
	}
	return strings.Join(out, "\n")
}

// hang is how far the continuation lines of l are indented: its leading
// spaces and list mark.
func hang(l string, width int) int {
	t := ansi.Strip(l)
	n := len(t) - len(strings.TrimLeft(t, " "))
	rest := t[n:]
	switch {
	case strings.HasPrefix(rest, "• "), strings.HasPrefix(rest, "- "), strings.HasPrefix(rest, "│ "):
		n += 2
	default:
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i > 0 && strings.HasPrefix(rest[i:], ". ") {
			n += i + 2
		}
	}
	if n > width/2 {
		return 0 // a hang that leaves no room would only make lines shorter
	}
	return n
}
