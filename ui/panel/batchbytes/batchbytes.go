// Package batchbytes is the header-bytes panel: one Record Batch v2 as a
// hex grid, each of the 61 header bytes in its field's colour, the record
// bytes after them, the CRC-covered range (byte 21 to the end) shaded, and
// a cursor that walks field by field or byte by byte with the field's
// name, offsets, decoded value and meaning beside it.
//
// Bytes that changed since the previous step are flagged, in colour and in
// words: when a leader stores a batch it writes the offset and its epoch
// into bytes 0-15, outside the CRC, so the CRC stays the same — the panel
// says so in the line under the grid. When the leader had to rewrite
// bytes the CRC covers, as Kafka does with a batch whose header or record
// offsets a producer got wrong, the line says the CRC was recomputed.
package batchbytes

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/eoslab/eoslab/engine/record"
	"github.com/eoslab/eoslab/ui/keymap"
	"github.com/eoslab/eoslab/ui/panel"
	"github.com/eoslab/eoslab/ui/styles"
	"github.com/eoslab/eoslab/ui/widget/box"
)

// Model is the header-bytes panel.
type Model struct {
	st   *styles.Styles
	keys keymap.KeyMap
	w, h int

	label   string
	d       decoded
	changed []bool   // per byte: differs from the previous step
	notes   []string // the changed fields, in words
	newCRC  bool     // the leader rewrote bytes the CRC covers
	how     string   // what was compared ("" : the previous step)
	cursor  int
	byField bool // the cursor moved by field last: highlight the whole field
	top     int  // first grid row shown

	view string     // rendered by render(), returned by View
	need panel.Need // measured by render()
}

// New returns an empty panel.
func New(st *styles.Styles, keys keymap.KeyMap) Model {
	return Model{st: st, keys: keys, byField: true}
}

// SetSize sets the inner size (without frame).
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.render()
}

// SetData chooses the batch to show from a frame of the engine. When a
// leader stored the batch in this very step, its bytes are compared with
// the bytes the producer sent; otherwise with what the panel showed
// before, when the world moved forward.
func (m *Model) SetData(d panel.Data) {
	c := Select(&d)
	if c.Sent != nil && d.Motion != panel.Same {
		m.SetBatch(c.Label, c.Bytes, panel.Jump)
		m.compare(c.Sent, "as sent → as stored", true)
		return
	}
	m.SetBatch(c.Label, c.Bytes, d.Motion)
}

// SetBatch shows bytes b. motion decides whether the bytes shown before
// count as "the previous step" for the changed-bytes flags.
func (m *Model) SetBatch(label string, b []byte, motion panel.Motion) {
	prev := m.d.bytes
	same := string(b) == string(prev)
	m.label = label
	if !same {
		m.d = decode(b)
	}
	m.cursor = min(m.cursor, max(len(b)-1, 0))
	switch {
	case same && motion == panel.Same:
		m.render() // focus or size changed: the flags stay
	case motion == panel.Forward:
		m.compare(prev, "", false)
	default:
		m.changed, m.notes, m.newCRC = nil, nil, false
		m.render()
	}
}

// compare flags the bytes that differ from ref (the same batch earlier;
// stored: as its producer sent it).
func (m *Model) compare(ref []byte, how string, stored bool) {
	m.changed, m.notes, m.newCRC = changedFields(ref, m.d.bytes, stored)
	m.how = how
	m.render()
}

// Bytes is the batch shown.
func (m Model) Bytes() []byte { return m.d.bytes }

// Update moves the cursor.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok || len(m.d.bytes) == 0 {
		return m, nil
	}
	n := len(m.d.bytes)
	switch {
	case key.Matches(k, m.keys.FieldNext):
		if s := m.d.spanAt(m.cursor); s >= 0 && s+1 < len(m.d.spans) {
			m.cursor = m.d.spans[s+1].start
		}
		m.byField = true
	case key.Matches(k, m.keys.FieldPrev):
		if s := m.d.spanAt(m.cursor); s > 0 {
			m.cursor = m.d.spans[s-1].start
		}
		m.byField = true
	case key.Matches(k, m.keys.ByteNext):
		m.cursor, m.byField = min(m.cursor+1, n-1), false
	case key.Matches(k, m.keys.BytePrev):
		m.cursor, m.byField = max(m.cursor-1, 0), false
	case key.Matches(k, m.keys.Down):
		m.cursor, m.byField = min(m.cursor+m.perRow(), n-1), false
	case key.Matches(k, m.keys.Up):
		m.cursor, m.byField = max(m.cursor-m.perRow(), 0), false
	default:
		return m, nil
	}
	m.render()
	return m, nil
}

// Scroll moves the cursor by rows of the grid (the mouse wheel).
func (m *Model) Scroll(rows int) {
	if len(m.d.bytes) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+rows*m.perRow(), 0), len(m.d.bytes)-1)
	m.byField = false
	m.render()
}

// Keys lists the panel's keys for the help.
func (m Model) Keys() []key.Binding {
	return []key.Binding{m.keys.FieldNext, m.keys.FieldPrev, m.keys.ByteNext, m.keys.BytePrev}
}

// View renders the panel's inside.
func (m Model) View() string { return m.view }

// Need is the room the panel's content asks for: the grid's rows at 16
// bytes a row and the field's name on one line, the text under them
// wrapped to the width it has.
func (m Model) Need() panel.Need { return m.need }

// Cursor is the byte under the cursor.
func (m Model) Cursor() int { return m.cursor }

// perRow is 16 bytes a row when there is room, else 8.
func (m Model) perRow() int {
	if m.w >= 4+16*3+1 {
		return 16
	}
	return 8
}

func (m *Model) render() {
	if m.w <= 0 || m.h <= 0 {
		m.view = ""
		return
	}
	if len(m.d.bytes) == 0 {
		m.need = panel.Need{}
		m.view = box.Fit(m.st.Muted.Render(box.Wrap("no batch yet: a producer's batch appears here once it is sent", m.w)), m.w, m.h)
		return
	}
	title := m.st.Title.Render(m.label)
	per := m.perRow()
	need := (len(m.d.bytes) + per - 1) / per
	all := m.details(1 << 20)
	name := 0
	if len(all) > 0 {
		name = ansi.StringWidth(all[0])
	}
	m.need = panel.Need{Width: max(ansi.StringWidth(title), 4+16*3+1, name), Height: 1 + need + len(all)}
	// The grid keeps at least its header rows (or all it has); the text
	// under it gets the rest, most important first.
	room := m.h - 1 - min(need, 61/per+1)
	details := m.details(room)
	grid := m.grid(max(m.h-1-len(details), 1))
	lines := append([]string{title}, grid...)
	lines = append(lines, details...)
	m.view = box.Fit(strings.Join(lines, "\n"), m.w, m.h)
}

// grid renders the visible rows of the hex grid, scrolled to the cursor.
func (m *Model) grid(rows int) []string {
	per := m.perRow()
	total := (len(m.d.bytes) + per - 1) / per
	row := m.cursor / per
	if row < m.top {
		m.top = row
	}
	if row >= m.top+rows {
		m.top = row - rows + 1
	}
	m.top = max(min(m.top, total-rows), 0)
	// The brackets hold what the cursor is on: the field when it moves by
	// field, the one byte when it moves by byte. Reverse video marks the
	// same bytes, but NO_COLOR drops it; the brackets stay.
	lo, hi := -1, -1
	if s := m.d.spanAt(m.cursor); s >= 0 {
		lo, hi = m.d.spans[s].start, m.d.spans[s].end
	}
	if !m.byField {
		lo, hi = m.cursor, m.cursor+1
	}
	var out []string
	for r := m.top; r < min(m.top+rows, total); r++ {
		out = append(out, m.row(r*per, min((r+1)*per, len(m.d.bytes)), lo, hi))
	}
	if more := total - (m.top + rows); more > 0 && len(out) > 0 {
		out[len(out)-1] = m.st.Muted.Render(fmt.Sprintf("     … %d more bytes (j/↓ to scroll)", len(m.d.bytes)-(m.top+rows)*per))
	}
	return out
}

// row renders bytes [from, to). The cursor's field is bracketed, so it
// is visible without colour; a run of same-styled bytes (with the spaces
// between them) shares one Render call.
func (m *Model) row(from, to, lo, hi int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%4d", from)
	var run []byte
	runStyle := -1
	flush := func() {
		if len(run) > 0 {
			b.WriteString(m.byteStyle(runStyle).Render(string(run)))
			run = run[:0]
		}
	}
	for i := from; i < to; i++ {
		sep := byte(' ')
		switch {
		case i == lo:
			sep = '['
		case i == hi:
			sep = ']'
		case len(m.changed) > i && m.changed[i] && (i == 0 || !m.changed[i-1]):
			sep = '*'
		}
		sty := m.styleIndex(i, lo, hi)
		if sep != ' ' || sty != runStyle {
			flush()
			runStyle = sty
		}
		if sep != ' ' {
			b.WriteString(m.st.Bold.Render(string(sep)))
		} else {
			run = append(run, ' ')
		}
		run = append(run, hexDigits[m.d.bytes[i]>>4], hexDigits[m.d.bytes[i]&15])
	}
	flush()
	if hi == to {
		b.WriteString(m.st.Bold.Render("]"))
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

// Style indexes: 0-12 fields, 13 records; +16 inside the CRC; +32 changed; +64 cursor.
func (m *Model) styleIndex(i, lo, hi int) int {
	s := 13
	if i < record.HeaderSize {
		s = fieldOf(i)
	}
	if i >= record.AttributesOffset {
		s += 16
	}
	if len(m.changed) > i && m.changed[i] {
		s += 32
	}
	if (m.byField && i >= lo && i < hi) || i == m.cursor {
		s += 64
	}
	return s
}

func (m *Model) byteStyle(s int) lipgloss.Style {
	var st lipgloss.Style
	base, crc := s%16, s&16 != 0
	switch {
	case base == 13 && crc:
		st = m.st.RecordsCRC
	case base == 13:
		st = m.st.Records
	case crc:
		st = m.st.FieldsCRC[base]
	default:
		st = m.st.Fields[base]
	}
	if s&32 != 0 {
		st = m.st.Changed
	}
	if s&64 != 0 {
		st = st.Inherit(m.st.Cursor).Reverse(true)
	}
	return st
}

func fieldOf(i int) int {
	for k, f := range record.HeaderFields() {
		if i < f.End() {
			return k
		}
	}
	return 12
}

// details is the text under the grid, wrapped, at most room lines: the
// span under the cursor, what changed since the last step, the field's
// meaning, the CRC's coverage — dropped from the end when space is short.
func (m *Model) details(room int) []string {
	d := &m.d
	var name, meaning string
	if k := d.spanAt(m.cursor); k >= 0 {
		s := d.spans[k]
		switch s.field {
		case -1:
			name = fmt.Sprintf("▸ record %d  bytes %d-%d  %s", s.record, s.start, s.end-1, d.recordText(s.record))
			meaning = "records follow the 61-byte header as varint-framed fields, all inside the CRC"
		case -2:
			name = fmt.Sprintf("▸ records  bytes %d-%d  %s-compressed", s.start, s.end-1, d.hdr.Attributes.Compression())
			meaning = fmt.Sprintf("%d record(s) compressed together; the CRC covers the compressed bytes", d.hdr.RecordsCount)
		default:
			f := record.HeaderFields()[s.field]
			name = m.st.Fields[s.field].Bold(true).Render("▸ "+f.Name) +
				fmt.Sprintf("  bytes %d-%d  %s = %s", f.Offset, f.End()-1, f.Type, d.value(s.field))
			meaning = f.Meaning
			if !f.CRCCovered {
				meaning += " (outside the CRC)"
			}
		}
	}
	crc := fmt.Sprintf("CRC-32C covers bytes 21-%d (shaded)", max(len(d.bytes)-1, 21))
	if d.hdrOK && d.crcOK {
		crc += m.st.Good.Render(" · stored crc matches ✓")
	} else if d.hdrOK {
		crc += m.st.Bad.Render(" · stored crc does not match ✗")
	}
	change := ""
	if len(m.notes) > 0 {
		since := "since the last step"
		if m.how != "" {
			since += " (" + m.how + ")"
		}
		change = m.st.Changed.Render("*") + " changed " + since + ": " + strings.Join(m.notes, ", ")
		if m.newCRC {
			change += m.st.Changed.Render(" · crc recomputed") + " — the leader rewrote bytes it covers"
		} else {
			change += m.st.Good.Render(" · crc unchanged ✓") + " — bytes 0-20 are outside it"
		}
	}
	if d.problem != "" {
		change = m.st.Bad.Render("✗ " + d.problem)
	}
	marker := ""
	if d.marker != "" {
		marker = m.st.Warn.Render("◆ control batch: " + d.marker)
	}
	var out []string
	for _, part := range []string{name, marker, change, meaning, crc} {
		if part == "" {
			continue
		}
		wrapped := box.Reflow(part, m.w, 0)
		if part == meaning { // indented under the field's name
			wrapped = box.Reflow(part, m.w-2, 0)
			for i, l := range wrapped {
				wrapped[i] = m.st.Muted.Render("  " + l)
			}
		}
		if len(out)+len(wrapped) > room {
			break
		}
		out = append(out, wrapped...)
	}
	return out
}
