package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A broken config file stops only what uses the settings: version,
// inspect, help, config init work; config shows what it can and names
// the file and line of the problem; play and the rest fail with it.
func TestBrokenConfigLeavesCommandsWorking(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	os.WriteFile(file, []byte("theme: dark\nmouse: [true\n"), 0o644)
	const problem = ":2: did not find expected ',' or ']'"
	cases := []struct {
		name         string
		args         []string
		code         int
		stdout, errs string
	}{
		{"version", []string{"version"}, 0, "eoslab ", ""},
		{"inspect", []string{"inspect", sample}, 0, "COMMIT marker", ""},
		{"--help", []string{"--help"}, 0, "Usage:", ""},
		{"help play", []string{"help", "play"}, 0, "play runs a script", ""},
		{"play --help", []string{"play", "--help"}, 0, "play runs a script", ""},
		{"config init", []string{"config", "init", filepath.Join(dir, "new.yaml")}, 0, "wrote ", ""},
		{"config", []string{"config"}, 2, "seed = 1\t(default)", file + problem},
		{"play", []string{"play", "assets/scripts/worked-example.eos"}, 2, "", file + problem},
		{"lessons list", []string{"lessons", "list"}, 2, "", file + problem},
		{"themes", []string{"themes"}, 2, "", file + problem},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"--config", file}, c.args...)...)
			if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errOut, c.errs) {
				t.Fatalf("exit %d (want %d)\nstdout: %.300s\nstderr: %s", code, c.code, out, errOut)
			}
			if c.code == 2 && strings.Contains(errOut, "--help") {
				t.Errorf("a config problem is not a usage mistake: %q", errOut)
			}
		})
	}
}

// Each way a setting can be wrong, from a file, the environment or a
// flag, is an error that names where it came from — a file's line, the
// text as written, and for a value of the wrong kind what was found.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, file string
		env        map[string]string
		flags      []string
		want       string // stderr of `config`, with FILE for the file's path
	}{
		{name: "a file of more than 1 MiB", file: "seed: 1\n" + strings.Repeat("#", maxConfigBytes), want: "config file FILE: larger than 1 MiB, the most a config file may be"},
		{name: "bad YAML on line 2", file: "theme: dark\nmouse: [true\n", want: "config file FILE:2: did not find expected ',' or ']'"},
		{name: "an unclosed list on line 1", file: "seed: [1\n", want: "config file FILE:1: did not find expected ',' or ']'"},
		{name: "a list item among keys", file: "seed: 1\n- a\n", want: "config file FILE:2: did not find expected key"},
		{name: "bad indentation", file: "theme: dark\n  ascii: [\n", want: "config file FILE:2: mapping values are not allowed in this context"},
		{name: "not a map", file: "- seed\n", want: `config file FILE:1: want one "key: value" a line, got a list`},
		{name: "a key twice", file: "seed: 1\nseed: 2\n", want: `config file FILE:2: "seed" given twice (first on line 1)`},
		{name: "a bad tag", file: "theme: dark\nascii: !!int x\n", want: "config file FILE:2: ascii: cannot decode !!str `x` as a !!int"},
		{name: "a seed past 64 bits", file: "seed: 99999999999999999999\n", want: `seed = "99999999999999999999" (file FILE:1): want a non-negative integer of at most 64 bits`},
		{name: "a negative seed", file: "theme: dark\nseed: -5\n", want: `seed = "-5" (file FILE:2): want a non-negative integer`},
		{name: "a list for a bool", file: "mouse: [true]\n", want: "mouse (file FILE:1): want true or false, got a list"},
		{name: "a map for a bool", file: "ascii: {a: 1}\n", want: "ascii (file FILE:1): want true or false, got a map"},
		{name: "nothing for a bool", file: "ascii:\n", want: "ascii (file FILE:1): want true or false, got nothing"},
		{name: "a list for a theme", file: "theme: [dark]\n", want: "theme (file FILE:1): want a name, got a list"},
		{name: "NaN from the file", file: "speed: NaN\n", want: `speed = "NaN" (file FILE:1): want steps per second`},
		{name: "YAML's NaN", file: "speed: .nan\n", want: `speed = ".nan" (file FILE:1): want steps per second`},
		{name: "infinity from the file", file: "speed: .inf\n", want: `speed = ".inf" (file FILE:1): want steps per second`},
		{name: "NaN from the environment", env: map[string]string{"EOSLAB_SPEED": "NaN"}, want: `speed = "NaN" (environment EOSLAB_SPEED): want steps per second`},
		{name: "infinity from the environment", env: map[string]string{"EOSLAB_SPEED": "+Inf"}, want: `speed = "+Inf" (environment EOSLAB_SPEED): want steps per second`},
		{name: "NaN from a flag", flags: []string{"--speed", "NaN"}, want: `speed = "NaN" (flag --speed): want steps per second`},
		{name: "infinity from a flag", flags: []string{"--speed", "Inf"}, want: `speed = "+Inf" (flag --speed): want steps per second`},
		{name: "a negative seed from the environment, no file", env: map[string]string{"EOSLAB_SEED": "-1"}, want: `seed = "-1" (environment EOSLAB_SEED): want a non-negative integer`},
		{name: "a seed past 64 bits from the environment", env: map[string]string{"EOSLAB_SEED": "18446744073709551616"}, want: `seed = "18446744073709551616" (environment EOSLAB_SEED): want a non-negative integer of at most 64 bits`},
		{name: "a bad bool from the environment", env: map[string]string{"EOSLAB_MOUSE": "sometimes"}, want: `mouse = "sometimes" (environment EOSLAB_MOUSE): want true or false`},
		{name: "a value echoed bounded and escaped", env: map[string]string{"EOSLAB_SEED": "\x1b[2J" + strings.Repeat("9", 100)}, want: `seed = "\x1b[2J` + strings.Repeat("9", 56) + `"… (environment EOSLAB_SEED)`},
		{name: "two problems, both said", env: map[string]string{"EOSLAB_SEED": "x", "EOSLAB_ASCII": "y"}, want: "eoslab: seed = \"x\" (environment EOSLAB_SEED): want a non-negative integer\neoslab: ascii = \"y\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			args := append([]string{}, c.flags...)
			file := ""
			if c.file != "" {
				file = filepath.Join(t.TempDir(), "config.yaml")
				os.WriteFile(file, []byte(c.file), 0o644)
				args = append(args, "--config", file)
			}
			want := strings.ReplaceAll(c.want, "FILE", file)
			code, _, errOut := runCLI(t, append(args, "config")...)
			if code != 2 || !strings.Contains(errOut, want) {
				t.Fatalf("config: exit %d, stderr\n%s\nwant %s", code, errOut, want)
			}
			// What config reports, play refuses to run with.
			code, out, errOut := runCLI(t, append(args, "play", "assets/scripts/worked-example.eos")...)
			if code != 2 || out != "" || !strings.Contains(errOut, want) {
				t.Fatalf("play: exit %d, stdout %.100q, stderr %q", code, out, errOut)
			}
		})
	}
}

// Values that are right stay right: YAML's forms of them, and the same
// spellings from the environment.
func TestConfigValuesAccepted(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(file, []byte("# comment\nseed: 18446744073709551615\nspeed: 0.5\nascii: true\nmouse: false\ntheme: \"light\"\nlessons_dir: ~\n"), 0o644)
	code, out, errOut := runCLI(t, "--config", file, "config")
	for _, want := range []string{"seed = 18446744073709551615\t(file ", "speed = 0.5\t(file ", "ascii = true", "mouse = false", "theme = light", "lessons_dir = (nothing)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	os.WriteFile(file, nil, 0o644)
	if code, _, errOut := runCLI(t, "--config", file, "config"); code != 0 {
		t.Errorf("an empty file: exit %d, %s", code, errOut)
	}
}

// The YAML library counts its parser's lines from 0 and its scanner's
// from 1; the config's errors say the line a person counts.
func TestYAMLErrorLine(t *testing.T) {
	cases := []struct {
		msg  string
		line int
		rest string
	}{
		{"yaml: line 1: did not find expected ',' or ']'", 2, "did not find expected ',' or ']'"},
		{"yaml: line 1: did not find expected key", 2, "did not find expected key"},
		{"yaml: did not find expected key", 1, "did not find expected key"},
		{"yaml: line 2: mapping values are not allowed in this context", 2, "mapping values are not allowed in this context"},
		{"yaml: line 3: found unexpected end of stream", 3, "found unexpected end of stream"},
		{"yaml: unknown anchor 'x' referenced", 0, "unknown anchor 'x' referenced"},
	}
	for _, c := range cases {
		line, rest := yamlErrorLine(c.msg)
		if line != c.line || rest != c.rest {
			t.Errorf("yamlErrorLine(%q) = %d, %q; want %d, %q", c.msg, line, rest, c.line, c.rest)
		}
	}
}
