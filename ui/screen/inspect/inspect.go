// Package inspect is the interactive segment inspector: a real Kafka log
// file, batch by batch, in the header-bytes panel, with a list of the
// file's batches beside it. Decoding is ui/inspect's (the same reader as
// `eoslab inspect`); this screen only chooses what to show.
package inspect

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	segment "github.com/eoslab/eoslab/ui/inspect"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/panel/batchbytes"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// File is one segment file to browse.
type File struct {
	Name string
	Data []byte
}

type entry struct {
	file    string
	batch   segment.Batch
	raw     []byte
	summary string
}

// Model is the inspect screen.
type Model struct {
	st      *styles.Styles
	keys    keymap.KeyMap
	w, h    int
	entries []entry
	problem string // a framing error that stopped a file's scan
	cur     int
	bytes   batchbytes.Model
	// standalone: opened from the shell (`eoslab inspect FILE --tui`), so
	// it is the program's first screen and q quits instead of going back.
	standalone bool
}

// New decodes the files and shows their first batch.
func New(st *styles.Styles, keys keymap.KeyMap, files []File) Model {
	m := Model{st: st, keys: keys, bytes: batchbytes.New(st, keys)}
	for _, f := range files {
		batches, err := segment.Read(f.Data)
		if err != nil {
			m.problem = fmt.Sprintf("%s: %v (the batches before it are shown)", f.Name, err)
		}
		for _, b := range batches {
			end := min(b.Position+int64(b.Size()), int64(len(f.Data)))
			m.entries = append(m.entries, entry{file: f.Name, batch: b, raw: f.Data[b.Position:end], summary: summary(&b)})
		}
	}
	m.show()
	return m
}

func summary(b *segment.Batch) string {
	kind := "plain"
	switch {
	case b.Marker != nil:
		kind = b.Marker.Type.String() + " marker"
	case b.Attributes.Transactional():
		kind = "transactional"
	case b.ProducerID >= 0:
		kind = "idempotent"
	}
	if c := b.Attributes.Compression().String(); c != "none" {
		kind += ", " + c
	}
	s := fmt.Sprintf("%d-%d %s", b.BaseOffset, b.LastOffset(), kind)
	if !b.CRCValid {
		s += " ✗ crc"
	}
	return s
}

func (m *Model) show() {
	if len(m.entries) == 0 {
		return
	}
	e := m.entries[m.cur]
	label := fmt.Sprintf("batch %d of %d · %s at position %d · %s", m.cur+1, len(m.entries), e.file, e.batch.Position, e.summary)
	m.bytes.SetBatch(label, e.raw, panel.Jump)
}

// SetStandalone marks the inspector as opened from the shell: there is
// no screen it came from, so q quits.
func (m *Model) SetStandalone() { m.standalone = true }

// Standalone reports whether the inspector was opened from the shell.
func (m Model) Standalone() bool { return m.standalone }

// SetSize lays the screen out: the batch list on the left when there is
// room, the bytes panel in the rest.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.bytes.SetSize(m.bytesWidth()-2, h-1-2)
}

func (m Model) listWidth() int {
	if m.w >= 100 {
		return 34
	}
	return 0
}

func (m Model) bytesWidth() int { return m.w - m.listWidth() }

// Update walks batches (← → j k, a click in the list) and passes cursor
// keys to the bytes panel.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, m.keys.NextBatch):
			if m.cur+1 < len(m.entries) {
				m.cur++
				m.show()
			}
			return m, nil
		case key.Matches(k, m.keys.PrevBatch):
			if m.cur > 0 {
				m.cur--
				m.show()
			}
			return m, nil
		}
	}
	if mm, ok := msg.(tea.MouseMsg); ok {
		switch {
		case mm.Button == tea.MouseButtonWheelUp:
			m.bytes.Scroll(-3)
		case mm.Button == tea.MouseButtonWheelDown:
			m.bytes.Scroll(3)
		case mm.Button == tea.MouseButtonLeft && mm.Action == tea.MouseActionRelease && mm.X < m.listWidth():
			// The list's rows start under the title line and the frame's top.
			if i := m.listTop() + mm.Y - 2; mm.Y >= 2 && i < len(m.entries) {
				m.cur = i
				m.show()
			}
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.bytes, cmd = m.bytes.Update(msg)
	return m, cmd
}

// Keys lists the screen's keys for the help: the batches, then the
// bytes (whose rows move with ↑ ↓ only here: j k walk the batches).
func (m Model) Keys() []key.Binding {
	return append(append([]key.Binding{m.keys.NextBatch, m.keys.PrevBatch}, m.bytes.Keys()...), m.keys.RowUp, m.keys.RowDown)
}

// listTop is the first batch the list shows: it scrolls to keep the
// batch shown in view.
func (m Model) listTop() int {
	rows := m.h - 1 - 2
	if rows <= 0 || m.cur < rows {
		return 0
	}
	return m.cur - rows + 1
}

// View draws the title, the batch list and the bytes.
func (m Model) View() string {
	title := m.st.Title.Render("Inspect") + m.st.Muted.Render("  ·  a real segment file: ← → j k walk the batches, w b . , walk the bytes")
	if m.problem != "" {
		title = m.st.Bad.Render("✗ " + m.problem)
	}
	if len(m.entries) == 0 {
		return box.Stack(box.Line(title, m.w), box.Fit(m.st.Muted.Render("no batch in this file"), m.w, m.h-1))
	}
	body := box.Frame("header bytes", m.bytes.View(), m.bytesWidth(), m.h-1, m.st.BorderFocus, m.st.Title)
	if lw := m.listWidth(); lw > 0 {
		var rows []string
		for i := m.listTop(); i < len(m.entries); i++ {
			e := m.entries[i]
			s := fmt.Sprintf("%2d  %s", i+1, e.summary)
			if i == m.cur {
				s = m.st.Selected.Render(box.Line("▸"+s, lw-2))
			} else {
				s = " " + s
			}
			rows = append(rows, s)
		}
		list := box.Frame("batches", strings.Join(rows, "\n"), lw, m.h-1, m.st.Border, m.st.Muted)
		body = box.Join(list, body)
	}
	return box.Stack(box.Line(title, m.w), body)
}
