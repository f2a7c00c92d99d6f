package app

import (
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Budget: View() of the lesson screen at 120×40 in at most 1 ms, in
// colour (the realistic cost) and in ASCII (the goldens' profile).
func BenchmarkLessonView(b *testing.B) {
	for _, p := range []struct {
		name    string
		profile termenv.Profile
	}{{"truecolor", termenv.TrueColor}, {"ascii", termenv.Ascii}} {
		b.Run(p.name, func(b *testing.B) {
			opt := testOptions(b, true)
			opt.Renderer = lipgloss.NewRenderer(io.Discard)
			opt.Renderer.SetColorProfile(p.profile)
			m := workedExampleAtFirstAppend(b, 120, 40)
			m2, err := New(opt)
			if err != nil {
				b.Fatal(err)
			}
			m = replay(b, m2, m)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// replay brings a fresh model with other options to the same lesson
// position as ref, the way a learner would (keys).
func replay(b *testing.B, fresh, ref Model) Model {
	m, _ := send(b, fresh, tea.WindowSizeMsg{Width: 120, Height: 40}, keyEnter, keyEnter)
	for m.Session().Step() < ref.Session().Step() {
		m, _ = send(b, m, keyRight)
	}
	return m
}

// Budget: start to first frame in at most 100 ms — building the app
// (chapters parsed, styles built) and drawing Home once sized. The real
// binary's start-up is reported by the tmux test (docs/performance.md).
func BenchmarkFirstFrame(b *testing.B) {
	opt := testOptions(b, true)
	opt.Renderer = lipgloss.NewRenderer(io.Discard)
	opt.Renderer.SetColorProfile(termenv.TrueColor)
	b.ReportAllocs()
	for b.Loop() {
		m, err := New(opt)
		if err != nil {
			b.Fatal(err)
		}
		next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = next.View()
	}
}
