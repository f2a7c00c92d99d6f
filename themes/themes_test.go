package themes

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"go.yaml.in/yaml/v3"
)

func TestBuiltinThemesAreComplete(t *testing.T) {
	for _, name := range BuiltinNames() {
		th, err := Builtin(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if th.Name != name {
			t.Errorf("%s: named %q inside", name, th.Name)
		}
		p := th.Palette
		if name == "mono" {
			if p.Text != "" || p.Good != "" || p.Fields[0] != "" {
				t.Errorf("mono has colours: %+v", p)
			}
			continue
		}
		// The three verdicts and the two offsets lines must be told apart.
		if p.Good == p.Warn || p.Warn == p.Bad || p.Good == p.Bad || p.HighWatermark == p.LastStable {
			t.Errorf("%s: append/duplicate/reject or HW/LSO share a colour", name)
		}
		for i, c := range p.Fields {
			if c == "" {
				t.Errorf("%s: field %s has no colour", name, FieldRoles[i])
			}
		}
	}
}

func TestThemeErrors(t *testing.T) {
	dark, _ := os.ReadFile("builtin/dark.yaml")
	cases := []struct{ src, want string }{
		{"name: x\ntext: \"252\"\nbordr: \"1\"\n", `t.yaml:3: unknown role "bordr", did you mean "border"?`},
		{strings.Replace(string(dark), `append: "42"`, `append: "#12345"`, 1), `t.yaml:9: append: "#12345" is not a colour`},
		{strings.Replace(string(dark), `append: "42"`, `append: "300"`, 1), `t.yaml:9: append: "300" is not a colour`},
		{strings.Replace(string(dark), `  crc: "203"`, `  crcc: "203"`, 1), `unknown header field "crcc", did you mean "crc"?`},
		{"text: \"252\"\n", "t.yaml: missing roles: muted, faint"},
		{"text: [\n", "t.yaml:1: did not find expected node content"},
		{"inherits: drak\n", `inherits: no built-in theme "drak", did you mean "dark"?`},
		{"- a\n", "t.yaml:1: a theme is a map of role: colour"},
		// What an error echoes of the file is bounded and printable.
		{"inherits: dark\n? " + strings.Repeat("r", 100000) + "\n: \"1\"\n", `t.yaml:2: unknown role "` + strings.Repeat("r", 60) + `"…`},
		{"inherits: dark\naccent: \"\\e[5m\"\n", `t.yaml:2: accent: "\x1b[5m" is not a colour`},
		{"inherits: dark\n\"\\e[2J\": \"1\"\n", `t.yaml:2: unknown role "\x1b[2J"`},
		{strings.Repeat("#", maxThemeBytes+1), "t.yaml: larger than 1 MiB"},
	}
	for _, c := range cases {
		_, err := Parse("t.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.200q:\n got %.300v\nwant %s", c.src, err, c.want)
			continue
		}
		checkPrintable(t, err.Error())
	}
	// inherits fills what is not given.
	th, err := Parse("t.yaml", []byte("inherits: light\nappend: \"#00ff00\"\n"))
	if err != nil || th.Palette.Good != "#00ff00" || th.Palette.Text != "235" {
		t.Fatalf("inherits: %v %+v", err, th)
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte("inherits: dark\nname: mine\naccent: \"#ff0000\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("inherits: dark\naccnt: \"1\"\n"), 0o644)
	if th, err := Resolve("auto", dir, true); err != nil || th.Name != "dark" {
		t.Errorf("auto on dark: %v %v", th, err)
	}
	if th, err := Resolve("auto", dir, false); err != nil || th.Name != "light" {
		t.Errorf("auto on light: %v %v", th, err)
	}
	if th, err := Resolve("mine", dir, true); err != nil || th.Palette.Accent != "#ff0000" {
		t.Errorf("user theme: %v %v", th, err)
	}
	if _, err := Resolve("broken", dir, true); err == nil || !strings.Contains(err.Error(), "broken.yaml:2: unknown role") {
		t.Errorf("a broken user theme must report its file and line: %v", err)
	}
	if _, err := Resolve("hi-contrast", dir, true); err == nil || !strings.Contains(err.Error(), `did you mean "high-contrast"?`) {
		t.Errorf("unknown theme: %v", err)
	}
}

// Every built-in theme spells out every role itself (none inherits), so
// that each file is a complete example to copy. Parse enforces this for
// files without inherits; this pins that no built-in relies on inherits.
func TestBuiltinFilesListEveryRole(t *testing.T) {
	for _, name := range BuiltinNames() {
		src, err := builtin.ReadFile("builtin/" + name + ".yaml")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(src, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := doc["inherits"]; ok {
			t.Errorf("%s: a built-in theme must not inherit", name)
		}
		for _, r := range Roles {
			if _, ok := doc[r].(string); !ok {
				t.Errorf("%s: role %s is not given a colour", name, r)
			}
		}
		fields, _ := doc["fields"].(map[string]any)
		for _, r := range FieldRoles {
			if _, ok := fields[r].(string); !ok {
				t.Errorf("%s: fields.%s is not given a colour", name, r)
			}
		}
		if ps, _ := doc["producers"].([]any); len(ps) == 0 {
			t.Errorf("%s: no producer colours", name)
		}
	}
}

// okabeIto are the eight colours of Okabe and Ito's palette, "Color
// Universal Design" (2008), distinguishable with the common forms of
// colour blindness.
var okabeIto = []string{"#000000", "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7"}

// okabe-ito keeps to the palette wherever colour tells things apart: the
// three verdicts, the two offset lines and the producers.
func TestOkabeItoUsesOnlyItsEightColours(t *testing.T) {
	th, err := Builtin("okabe-ito")
	if err != nil {
		t.Fatal(err)
	}
	p := th.Palette
	roles := map[string]lipgloss.Color{
		"append": p.Good, "duplicate": p.Warn, "reject": p.Bad,
		"high_watermark": p.HighWatermark, "lso": p.LastStable,
	}
	for i, c := range p.Producers {
		roles[fmt.Sprintf("producers[%d]", i)] = c
	}
	for role, c := range roles {
		if !slices.Contains(okabeIto, strings.ToLower(string(c))) {
			t.Errorf("okabe-ito: %s is %q, not one of the Okabe–Ito colours %v", role, c, okabeIto)
		}
	}
	if len(p.Producers) < 2 {
		t.Errorf("okabe-ito: %d producer colour(s); producers must be told apart", len(p.Producers))
	}
}

// A theme file that never ends (a link to /dev/zero) is read no further
// than a theme may be long, and reported.
func TestEndlessThemeFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Skip(err)
	}
	os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("inherits: dark\n"), 0o644)
	themes, errs := User(dir)
	if len(themes) != 1 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "zero.yaml: larger than 1 MiB") {
		t.Fatalf("themes %d, errors %v", len(themes), errs)
	}
}
