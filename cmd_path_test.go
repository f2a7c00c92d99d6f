package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The paths on the command line: listed with their chapters and times,
// played headless one chapter after another, checked as files.
func TestPathCommands(t *testing.T) {
	dir := t.TempDir()
	failing := filepath.Join(dir, "failing.md")
	os.WriteFile(failing, []byte("---\nchapter: 40\ntitle: Wrong\nsummary: A check that fails.\n---\n\n## S\n\n```eos\nproducer p1\nsend p1 orders-0 1\nrun\n```\n\n```expect\npartitions.orders-0.records == 5\n```\n"), 0o644)
	bad := filepath.Join(dir, "bad.path")
	os.WriteFile(bad, []byte("path: bad\ntitle: T\nsummary: S.\n1 5m\n99 5m\n"), 0o644)
	withFailing := filepath.Join(dir, "mine.path")
	os.WriteFile(withFailing, []byte("path: mine\ntitle: Mine\nsummary: One good, one failing.\n1 5m\n"+failing+" 5m\n"), 0o644)
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"list shows the path", []string{"lessons", "list"}, 0, "Path workshop: Exactly-once in 90 minutes (10 chapters, 90 min)", ""},
		{"play the workshop headless", []string{"play", "--path", "workshop", "--headless"}, 0, "=== workshop: 10 chapters, 90 min, every check holds", ""},
		{"not a terminal: the transcripts", []string{"play", "--path", "workshop"}, 0, "=== 1/10 · chapter 1 · 7 min (0-7)", ""},
		{"an unknown path", []string{"play", "--path", "worksop"}, 2, "", `no path "worksop"`},
		{"a path and a lesson", []string{"play", "--path", "workshop", "7"}, 2, "", "--path plays a path: give no lesson or script besides it"},
		{"a path file with an unknown chapter", []string{"play", "--path", bad}, 2, "", bad + `:5: path: no lesson "99"`},
		{"a failing chapter fails the path", []string{"play", "--path", withFailing, "--headless"}, 1, "=== mine: 1 of 2 chapters failed a check", failing + ":16: expected partitions.orders-0.records == 5, got 1"},
		{"check a path file", []string{"lessons", "check", "lessons/paths/workshop.path"}, 0, "lessons/paths/workshop.path: ok (path workshop, 10 chapters, 90 min)", ""},
		{"check a bad path file", []string{"lessons", "check", bad}, 1, "", bad + `:5: path: no lesson "99"`},
		{"an instructor's copy", []string{"play", "--path", "workshop", "--headless", "--presenter"}, 0, "  | presenter, ask the room: what in this batch's header could the leader use", ""},
		{"a chapter with its notes", []string{"play", "1", "--presenter"}, 0, "  | presenter, misconception: every Kafka producer carries an identity", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, c.args...)
			if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errOut, c.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %.600s\nstderr: %s", code, c.code, out, errOut)
			}
		})
	}
}
