package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/eoslab/eoslab/lessons"
)

const sample = "assets/sample/00000000000000000000.log"

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestExitStatus(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "00000000000000000000.log")
	data, _ := os.ReadFile(sample)
	os.WriteFile(bad, data[:700], 0o644)
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"inspect the sample", []string{"inspect", sample}, 0, "COMMIT marker, coordinatorEpoch 7", ""},
		{"inspect --json", []string{"inspect", "--json", sample}, 0, `"control_type":"ABORT"`, ""},
		{"truncated file", []string{"inspect", bad}, 1, "offsets 12-12", "at file position 645: truncated batch"},
		{"missing file", []string{"inspect", "nope.log"}, 1, "", "no such file"},
		{"no file given", []string{"inspect"}, 2, "", "requires at least 1 arg"},
		{"unknown command suggests", []string{"inspct"}, 2, "", "Did you mean this?\n\tinspect"},
		{"version", []string{"version"}, 0, "eoslab ", ""},
		{"lab holds", []string{"lab", "--runs", "20"}, 0, "runs with duplicates: 0", ""},
		{"lab control", []string{"lab", "--runs", "20", "--producer", "plain"}, 0, "runs with duplicates: 20", ""},
		{"lab bad producer", []string{"lab", "--producer", "x"}, 2, "", "--producer must be idempotent, plain or acks1"},
		{"lab show", []string{"lab", "--show", "--seed", "3", "--ops", "5"}, 0, "producer p1\nsend p1 orders-0 1", ""},
		{"lessons list", []string{"lessons", "list"}, 0, "The problem in slow motion", ""},
		{"play a lesson headless", []string{"play", "1", "--headless"}, 0, "✓ expect anomalies.duplicate == 1", ""},
		{"play an unknown lesson", []string{"play", "nope.md"}, 2, "", "nope.md: no such file"},
		{"check the example lesson", []string{"lessons", "check", "assets/lessons/example.md"}, 0, "ok (chapter 30, 4 steps)", ""},
		{"check the built-in chapters and paths", []string{"lessons", "check"}, 0, "builtin/26-diagnose-this-history.md: ok (chapter 26, 6 steps)\npath workshop: ok", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.args...)
			if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errOut, c.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, c.code, out, errOut)
			}
		})
	}
}

// Precedence: flag > EOSLAB_* environment > config file > default.
func TestConfigPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(file, []byte("seed: 7\n"), 0o644)
	cases := []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"config"}, "seed = 1\t(default)"},
		{"", []string{"--config", file, "config"}, "seed = 7\t(file " + file + ")"},
		{"9", []string{"--config", file, "config"}, "seed = 9\t(environment EOSLAB_SEED)"},
		{"9", []string{"--config", file, "--seed", "11", "config"}, "seed = 11\t(flag --seed)"},
	}
	for _, c := range cases {
		if c.env != "" {
			t.Setenv("EOSLAB_SEED", c.env)
		}
		code, out, errOut := runCLI(t, c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Fatalf("%v: exit %d, got %q (stderr %q), want %q", c.args, code, out, errOut, c.want)
		}
	}
}

// A malformed or missing config file is named by every command that
// uses the settings (version does not: TestBrokenConfigLeavesCommandsWorking).
func TestMalformedConfigNamesTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(file, []byte("seed: [1\n"), 0o644)
	code, _, errOut := runCLI(t, "--config", file, "lab", "--runs", "1")
	if code != 2 || !strings.Contains(errOut, file+":1:") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "--config", filepath.Join(t.TempDir(), "missing.yaml"), "lab", "--runs", "1")
	if code != 2 || !strings.Contains(errOut, "missing.yaml: no such file") {
		t.Fatalf("an explicit missing config must fail: exit %d, %q", code, errOut)
	}
}

// The JSON trace is a contract (docs/trace.md): every line parses, every
// produce.decision carries the documented keys, the last line is the state.
func TestPlayJSONContract(t *testing.T) {
	code, out, errOut := runCLI(t, "play", "--headless", "--trace", "json", "--state", "json", "assets/scripts/worked-example.eos")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	decisionKeys := []string{"kind", "step", "time_ms", "broker", "partition", "producer_id", "producer_epoch", "base_sequence",
		"last_sequence", "record_count", "transactional", "outcome", "error", "base_offset"}
	outcomes := map[string]int{}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, line)
		}
		if m["kind"] == "produce.decision" {
			for _, k := range decisionKeys {
				if _, ok := m[k]; !ok {
					t.Fatalf("produce.decision lacks %q: %s", k, line)
				}
			}
			outcomes[m["outcome"].(string)+" "+m["error"].(string)]++
		}
	}
	if outcomes["duplicate NONE"] == 0 || outcomes["reject OUT_OF_ORDER_SEQUENCE_NUMBER"] == 0 || outcomes["append NONE"] == 0 {
		t.Fatalf("the worked example should append, reject out of order and recognise a duplicate: %v", outcomes)
	}
	var state map[string]any
	json.Unmarshal([]byte(lines[len(lines)-1]), &state)
	if state["kind"] != "state" {
		t.Fatalf("last line is not the state: %s", lines[len(lines)-1])
	}
	for _, k := range []string{"time_ms", "producers", "partitions"} {
		if _, ok := state[k]; !ok {
			t.Fatalf("state lacks %q", k)
		}
	}
}

func TestPlayBadScript(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.eos")
	os.WriteFile(bad, []byte("producer p1\nsned p1 orders-0 1\nsend p9 orders-0 1\n"), 0o644)
	code, out, errOut := runCLI(t, "play", bad)
	if code != 2 || out != "" || !strings.Contains(errOut, bad+`:2:1: unknown command "sned", did you mean "send"?`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	os.WriteFile(bad, []byte("producer p1\nsend p9 orders-0 1\n"), 0o644)
	code, out, errOut = runCLI(t, "play", bad)
	if code != 2 || out != "" || !strings.Contains(errOut, bad+`:2:1: unknown producer "p9"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestLessonsCheckBrokenFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.md")
	os.WriteFile(bad, []byte("---\nchapter: 2\ntitle: T\nsummary: S\n---\n\n## S\npanels: windw\n\n```eos\nsned p1 orders-0 1\n```\n"), 0o644)
	code, _, errOut := runCLI(t, "lessons", "check", bad)
	if code != 1 || !strings.Contains(errOut, bad+`:8: unknown panel "windw"`) || !strings.Contains(errOut, bad+`:11: unknown command "sned", did you mean "send"?`) {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	// A lesson that reads cleanly but whose expectation fails is reported
	// with the expectation's line.
	wrong := filepath.Join(t.TempDir(), "wrong.md")
	os.WriteFile(wrong, []byte("---\nchapter: 2\ntitle: T\nsummary: S\n---\n\n## S\n\n```eos\nproducer p1 plain\nrun\n```\n\n```expect\nproducers.p1.producer_id == 0\n```\n"), 0o644)
	code, _, errOut = runCLI(t, "lessons", "check", wrong)
	if code != 1 || !strings.Contains(errOut, wrong+":15: expected producers.p1.producer_id == 0, got -1") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}

func TestConfigKeysAndWarnings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	os.WriteFile(file, []byte("theme: light\nascii: true\nspeeed: 3\n"), 0o644)
	t.Setenv("EOSLAB_SPEED", "5")
	code, out, errOut := runCLI(t, "--config", file, "--lessons-dir", "/tmp/x", "config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"theme = light\t(file " + file + ")", "ascii = true\t(file " + file + ")",
		"speed = 5\t(environment EOSLAB_SPEED)", "lessons_dir = /tmp/x\t(flag --lessons-dir)", "mouse = true\t(default)", "seed = 1\t(default)"} {
		if !strings.Contains(out, want) {
			t.Errorf("config output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, `unknown key "speeed" ignored (did you mean "speed"?)`) || strings.Count(errOut, "warning") != 1 {
		t.Errorf("want one warning naming the unknown key, got %q", errOut)
	}

	os.WriteFile(file, []byte("ascii: maybe\n"), 0o644)
	code, _, errOut = runCLI(t, "--config", file, "config")
	if code != 2 || !strings.Contains(errOut, `ascii = "maybe" (file `+file+`:1): want true or false`) {
		t.Errorf("a bad value: exit %d, %q", code, errOut)
	}
	os.WriteFile(file, []byte("theme: dark\n  ascii: [\n"), 0o644)
	code, _, errOut = runCLI(t, "--config", file, "config")
	if code != 2 || !strings.Contains(errOut, file+":2: ") {
		t.Errorf("malformed YAML must name the file and line: exit %d, %q", code, errOut)
	}
}

func TestConfigInit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "config.yaml")
	code, out, errOut := runCLI(t, "config", "init", path)
	if code != 0 || !strings.Contains(out, "wrote "+path) {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	for _, k := range []string{"# theme: \"auto\"", "# ascii: false", "# mouse: true", "# speed: 2", "# lessons_dir: \"\"", "# seed: 1"} {
		if !strings.Contains(string(data), k) {
			t.Errorf("default file lacks %q:\n%s", k, data)
		}
	}
	// The written file is valid and changes nothing.
	if code, out, _ := runCLI(t, "--config", path, "config"); code != 0 || !strings.Contains(out, "seed = 1\t(default)") {
		t.Errorf("the default file does not load cleanly: %d %s", code, out)
	}
	os.WriteFile(path, []byte("seed: 5\n"), 0o644)
	code, _, errOut = runCLI(t, "config", "init", path)
	data, _ = os.ReadFile(path)
	if code == 0 || !strings.Contains(errOut, "exists already") || string(data) != "seed: 5\n" {
		t.Errorf("init overwrote or did not refuse: exit %d, %q, file %q", code, errOut, data)
	}
}

// `play LESSON` opens the lab only on a terminal: run() hands non-terminal
// writers, as a pipe or CI does, so without --headless a lesson still
// prints its transcript and exits 0. Scripts are unchanged.
func TestPlayLessonFallsBackToTheTranscript(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"a chapter number", []string{"play", "1"}, "✓ expect anomalies.duplicate == 1"},
		{"with --speed", []string{"play", "--speed", "5", "1"}, "✓ expect anomalies.duplicate == 1"},
		{"a lesson file", []string{"play", "assets/lessons/example.md"}, "Chapter 30: "},
		{"a script", []string{"play", "assets/scripts/worked-example.eos"}, "duplicate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.args...)
			if code != 0 || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, want a transcript with %q\nstdout: %.400s\nstderr: %s", code, c.want, out, errOut)
			}
		})
	}
	// The headless transcript and the fallback are the same.
	_, headless, _ := runCLI(t, "play", "--headless", "1")
	if _, piped, _ := runCLI(t, "play", "1"); piped != headless {
		t.Fatal("the fallback differs from --headless")
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Fatal("a buffer is not a terminal")
	}
}

// The lab that `play LESSON` opens: the catalog, the progress store and
// autoplay's speed from --speed.
func TestPlayLessonOptions(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("EOSLAB_THEME", "dark") // no question to the terminal
	// The flags as the root command declares them.
	root := &cobra.Command{Use: "eoslab"}
	cfg := newConfig(io.Discard)
	(&tuiFlags{}).bind(root)
	cfg.bindFlags(root)
	if err := root.ParseFlags([]string{"--speed", "5"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.load(root); err != nil {
		t.Fatal(err)
	}
	opt, err := lessonOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if opt.AutoplayRate != 5 || opt.SaveProgress == nil || opt.LoadProgress == nil || opt.Catalog == nil {
		t.Fatalf("options: rate %g, progress %v", opt.AutoplayRate, opt.SaveProgress != nil)
	}
	chapters, err := opt.Catalog()
	builtin, _ := lessons.Builtin()
	if err != nil || len(builtin) == 0 || len(chapters) < len(builtin) {
		t.Fatalf("the catalog: %d chapters, %v", len(chapters), err)
	}
	// --speed is the speed setting, checked like it.
	if err := root.ParseFlags([]string{"--speed", "0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := lessonOptions(cfg); err == nil || !strings.Contains(err.Error(), `speed = "0"`) {
		t.Fatalf("--speed 0: %v", err)
	}
}

func TestThemesCommand(t *testing.T) {
	code, out, _ := runCLI(t, "themes")
	if code != 0 || !strings.Contains(out, "dark, light, high-contrast, okabe-ito, mono") {
		t.Fatalf("themes: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "themes", "okabe-ito")
	for _, role := range []string{"append", "duplicate", "reject", "high_watermark", "lso", "fenced", "producer_id"} {
		if code != 0 || !strings.Contains(out, role) {
			t.Fatalf("the preview lacks %s: exit %d\n%s", role, code, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("a preview to a non-terminal has escape codes:\n%q", out)
	}
	code, _, errOut := runCLI(t, "themes", "hi-contrast")
	if code != 2 || !strings.Contains(errOut, `did you mean "high-contrast"?`) {
		t.Fatalf("unknown theme: exit %d, %q", code, errOut)
	}
	// A broken user theme is reported with its file and line; the others list.
	cfg := t.TempDir()
	dir := filepath.Join(cfg, "eoslab", "themes")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte("inherits: dark\naccnt: \"1\"\n"), 0o644)
	var o, e bytes.Buffer
	t.Setenv("XDG_CONFIG_HOME", cfg)
	code = run([]string{"themes"}, &o, &e)
	if code != 1 || !strings.Contains(e.String(), filepath.Join(dir, "mine.yaml")+`:2: unknown role "accnt", did you mean "accent"?`) {
		t.Fatalf("broken user theme: exit %d, %q", code, e.String())
	}
}

// `eoslab lab --runs 10000` under network faults alone: Kafka's idempotent
// producer shows no duplicate, loss or reordering, and the command says so
// with exit status 0 (engine/sim's property test covers seeds 1-2000).
func TestLabCommandNetworkFaults(t *testing.T) {
	runs := "10000"
	if testing.Short() {
		runs = "1000"
	}
	code, out, errOut := runCLI(t, "lab", "--runs", runs, "--seed", "2001")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{"schedules of 40 commands with producer idempotent", "runs with duplicates: 0",
		"runs with lost acknowledged records: 0", "runs with reordering: 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

// The controls: the same command fails (exit 1) when it would let an
// anomaly through, and reports the plain producer's duplicates.
func TestLabCommandControls(t *testing.T) {
	code, out, _ := runCLI(t, "lab", "--runs", "50", "--producer", "plain")
	if code != 0 || strings.Contains(out, "runs with duplicates: 0") {
		t.Fatalf("plain producer: exit %d, want 0 with duplicates reported:\n%s", code, out)
	}
	code, _, errOut := runCLI(t, "lab", "--runs", "5", "--faults", "none")
	if code != 2 || !strings.Contains(errOut, "--faults must be network or all") {
		t.Fatalf("--faults none: exit %d (%s), want 2 with the reason", code, errOut)
	}
}
