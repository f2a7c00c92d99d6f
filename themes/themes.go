// Package themes reads colour themes: YAML files that give a colour to
// each semantic role of the lab (a header field, a producer, append /
// duplicate / reject, the high watermark and the LSO, fenced, lost,
// borders, text), never to a widget. Five are built in; users add their
// own in $XDG_CONFIG_HOME/eoslab/themes/.
package themes

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"go.yaml.in/yaml/v3"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/ui/styles"
)

//go:embed builtin/*.yaml
var builtin embed.FS

// Theme is a named palette and where it was read from.
type Theme struct {
	Name    string
	File    string
	Palette styles.Palette
}

// Roles are the top-level colour roles of a theme file.
var Roles = []string{"text", "muted", "faint", "accent", "border", "border_focus",
	"append", "duplicate", "reject", "high_watermark", "lso", "lost", "fenced",
	"crc_shade", "changed", "cursor", "records", "status_bg", "status_fg"}

// FieldRoles are the batch header's fields, in header order (the fields: map).
var FieldRoles = []string{"base_offset", "batch_length", "partition_leader_epoch", "magic", "crc",
	"attributes", "last_offset_delta", "base_timestamp", "max_timestamp", "producer_id",
	"producer_epoch", "base_sequence", "records_count"}

// Error is a problem in a theme file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

var hexColour = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// yamlLine finds the line in a YAML library's message.
var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// maxThemeBytes bounds a theme file: a complete theme is about 1 KiB,
// and a file a thousand times that is a mistake (or /dev/zero), not a
// theme.
const maxThemeBytes = 1 << 20

// maxMessage bounds how much of the YAML library's message is shown: it
// may quote the file (a duplicate key, say), and the file may be large.
const maxMessage = 200

// colour checks one value: "#rgb", "#rrggbb", an ANSI number 0-255, or
// "none" (no colour).
func colour(v string) (lipgloss.Color, bool) {
	if v == "none" {
		return "", true
	}
	if hexColour.MatchString(v) {
		return lipgloss.Color(v), true
	}
	n, err := strconv.Atoi(v)
	return lipgloss.Color(v), err == nil && n >= 0 && n <= 255 && strconv.Itoa(n) == v
}

// Parse reads a theme file. Every role must be given, unless the file
// says `inherits: NAME` (a built-in theme), whose colours fill the rest.
func Parse(file string, src []byte) (*Theme, error) {
	if len(src) > maxThemeBytes {
		return nil, &Error{file, 0, "larger than 1 MiB: not a theme (a complete one is about 1 KiB)"}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		line := 0
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		return nil, &Error{file, line, script.Excerpt(msg, maxMessage)}
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, &Error{file, 1, "a theme is a map of role: colour"}
	}
	root := doc.Content[0]
	t := &Theme{File: file, Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))}
	got := map[string]lipgloss.Color{}
	fields := map[string]lipgloss.Color{}
	var producers []lipgloss.Color
	inherits := ""
	bad := func(n *yaml.Node, format string, a ...any) error {
		return &Error{file, n.Line, fmt.Sprintf(format, a...)}
	}
	scalarColour := func(n *yaml.Node, role string) (lipgloss.Color, error) {
		if n.Kind != yaml.ScalarNode {
			return "", bad(n, "%s: want a colour (\"#rrggbb\", an ANSI number 0-255, or none)", role)
		}
		c, ok := colour(n.Value)
		if !ok {
			return "", bad(n, "%s: %s is not a colour (want \"#rrggbb\", \"#rgb\", an ANSI number 0-255, or none)", role, script.Quote(n.Value))
		}
		return c, nil
	}
	all := append([]string{"name", "inherits", "fields", "producers"}, Roles...)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch {
		case k.Value == "name":
			t.Name = v.Value
		case k.Value == "inherits":
			inherits = v.Value
		case k.Value == "fields":
			if v.Kind != yaml.MappingNode {
				return nil, bad(v, "fields: want a map of header field: colour")
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				fk, fv := v.Content[j], v.Content[j+1]
				if !slices.Contains(FieldRoles, fk.Value) {
					return nil, bad(fk, "unknown header field %s%s (fields: %s)", script.Quote(fk.Value), suggest(fk.Value, FieldRoles), strings.Join(FieldRoles, ", "))
				}
				c, err := scalarColour(fv, "fields."+fk.Value)
				if err != nil {
					return nil, err
				}
				fields[fk.Value] = c
			}
		case k.Value == "producers":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				return nil, bad(v, "producers: want a list of colours, e.g. [\"45\", \"213\"]")
			}
			for _, pv := range v.Content {
				c, err := scalarColour(pv, "producers")
				if err != nil {
					return nil, err
				}
				producers = append(producers, c)
			}
		case slices.Contains(Roles, k.Value):
			c, err := scalarColour(v, k.Value)
			if err != nil {
				return nil, err
			}
			got[k.Value] = c
		default:
			return nil, bad(k, "unknown role %s%s", script.Quote(k.Value), suggest(k.Value, all))
		}
	}
	var base *Theme
	if inherits != "" {
		b, err := Builtin(inherits)
		if err != nil {
			return nil, &Error{file, 0, fmt.Sprintf("inherits: %v", err)}
		}
		base = b
	}
	if base == nil {
		var missing []string
		for _, r := range Roles {
			if _, ok := got[r]; !ok {
				missing = append(missing, r)
			}
		}
		for _, r := range FieldRoles {
			if _, ok := fields[r]; !ok {
				missing = append(missing, "fields."+r)
			}
		}
		if producers == nil {
			missing = append(missing, "producers")
		}
		if len(missing) > 0 {
			return nil, &Error{file, 0, fmt.Sprintf("missing roles: %s (give them, or say inherits: dark)", strings.Join(missing, ", "))}
		}
	}
	t.Palette = fill(base, got, fields, producers)
	return t, nil
}

func fill(base *Theme, got, fields map[string]lipgloss.Color, producers []lipgloss.Color) styles.Palette {
	var p styles.Palette
	if base != nil {
		p = base.Palette
		p.Producers = slices.Clone(p.Producers)
	}
	set := func(dst *lipgloss.Color, role string) {
		if c, ok := got[role]; ok {
			*dst = c
		}
	}
	set(&p.Text, "text")
	set(&p.Muted, "muted")
	set(&p.Faint, "faint")
	set(&p.Accent, "accent")
	set(&p.Border, "border")
	set(&p.BorderFocus, "border_focus")
	set(&p.Good, "append")
	set(&p.Warn, "duplicate")
	set(&p.Bad, "reject")
	set(&p.HighWatermark, "high_watermark")
	set(&p.LastStable, "lso")
	set(&p.Lost, "lost")
	set(&p.Fenced, "fenced")
	set(&p.CRCShade, "crc_shade")
	set(&p.Changed, "changed")
	set(&p.Cursor, "cursor")
	set(&p.Records, "records")
	set(&p.StatusBg, "status_bg")
	set(&p.StatusFg, "status_fg")
	for i, r := range FieldRoles {
		if c, ok := fields[r]; ok {
			p.Fields[i] = c
		}
	}
	if producers != nil {
		p.Producers = producers
	}
	return p
}

func suggest(w string, cands []string) string {
	if s := script.Suggest(w, cands); s != "" {
		return fmt.Sprintf(", did you mean %q?", s)
	}
	return ""
}

// BuiltinNames lists the built-in themes.
func BuiltinNames() []string {
	return []string{"dark", "light", "high-contrast", "okabe-ito", "mono"}
}

// Builtin returns a built-in theme.
func Builtin(name string) (*Theme, error) {
	src, err := builtin.ReadFile("builtin/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no built-in theme %s%s (built-in: %s)", script.Quote(name), suggest(name, BuiltinNames()), strings.Join(BuiltinNames(), ", "))
	}
	return Parse("builtin/"+name+".yaml", src)
}

// UserDir is where user themes live: $XDG_CONFIG_HOME/eoslab/themes (or
// the OS's user configuration directory).
func UserDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "eoslab", "themes")
}

// User reads the user's theme files (*.yaml, *.yml). A missing directory
// holds none; every broken file is reported.
func User(dir string) ([]*Theme, []error) {
	if dir == "" {
		return nil, nil
	}
	var out []*Theme
	var errs []error
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, []error{err}
	}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		src, err := readTheme(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t, err := Parse(path, src)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, t)
	}
	return out, errs
}

// readTheme reads at most one byte more than a theme may have, so that a
// huge file (or a device that never ends) is refused by Parse at once.
func readTheme(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxThemeBytes+1))
}

// Resolve finds a theme by name: a user theme of that name first, then a
// built-in one. "auto" is dark or light from darkBackground.
func Resolve(name, userDir string, darkBackground bool) (*Theme, error) {
	if name == "" || name == "auto" {
		if darkBackground {
			return Builtin("dark")
		}
		return Builtin("light")
	}
	users, errs := User(userDir)
	for _, t := range users {
		if t.Name == name || strings.TrimSuffix(filepath.Base(t.File), filepath.Ext(t.File)) == name {
			return t, nil
		}
	}
	for _, err := range errs {
		var e *Error
		if errors.As(err, &e) && strings.TrimSuffix(filepath.Base(e.File), filepath.Ext(e.File)) == name {
			return nil, err
		}
	}
	if slices.Contains(BuiltinNames(), name) {
		return Builtin(name)
	}
	names := append(BuiltinNames(), "auto")
	for _, t := range users {
		names = append(names, t.Name)
	}
	return nil, fmt.Errorf("no theme %s%s (themes: %s)", script.Quote(name), suggest(name, names), strings.Join(names, ", "))
}
