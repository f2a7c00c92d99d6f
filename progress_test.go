package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eoslab/eoslab/ui/app"
)

var clock = time.Date(2026, 12, 1, 10, 30, 0, 123e6, time.FixedZone("CET", 3600))

func newProgressFile(t *testing.T) *progressFile {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "eoslab")
	os.MkdirAll(dir, 0o755)
	return &progressFile{path: filepath.Join(dir, "progress.json"), now: func() time.Time { return clock }}
}

// A progress file that cannot be read is no progress, and is not lost:
// the next save keeps it aside as progress.json.bad-TIME (the caller's
// time, in UTC, as a file name), says so once, and writes the new file.
func TestUnreadableProgressIsKeptAside(t *testing.T) {
	good := `{"done":[1,2],"chapter":3,"step":4,"scores":{"2":{"right":1,"asked":2,"steps":{"3":true,"5":false}}}}`
	cases := []struct{ name, content, why string }{
		{"truncated", good[:40], "unexpected end of JSON input"},
		{"empty", "", "not a JSON object"},
		{"garbage", "\x00\x01garbage\xff", "not a JSON object"},
		{"trailing garbage", good + "}", "invalid character"},
		{"null", "null", "not a JSON object"},
		{"a list", "[1,2]", "not a JSON object"},
		{"done of the wrong type", `{"done":"1,2","chapter":1,"step":1}`, "cannot unmarshal string"},
		{"step of the wrong type", `{"done":[1],"chapter":1,"step":"2"}`, "cannot unmarshal string"},
		{"scores of the wrong type", `{"done":[],"chapter":0,"step":0,"scores":[1]}`, "cannot unmarshal array"},
		{"a fraction", `{"done":[1.5],"chapter":0,"step":0}`, "cannot unmarshal number 1.5"},
		{"chapter 0 done", `{"done":[0],"chapter":0,"step":0}`, "done: chapter 0"},
		{"a negative step", `{"done":[],"chapter":2,"step":-1}`, "chapter 2, step -1"},
		{"a step without a chapter", `{"done":[],"chapter":0,"step":3}`, "chapter 0, step 3"},
		{"more right than asked", `{"done":[],"chapter":0,"step":0,"scores":{"4":{"right":3,"asked":2}}}`, "scores: chapter 4: 3 right of 2"},
		{"negative scores", `{"done":[],"chapter":0,"step":0,"scores":{"4":{"right":-1,"asked":-1}}}`, "scores: chapter 4: -1 right of -1"},
		{"a score for chapter 0", `{"done":[],"chapter":0,"step":0,"scores":{"0":{"right":0,"asked":1}}}`, "scores: chapter 0"},
		{"steps that disagree", `{"done":[],"chapter":0,"step":0,"scores":{"4":{"right":2,"asked":2,"steps":{"1":true,"2":false}}}}`, "its steps say 1 of 2"},
		{"step 0 scored", `{"done":[],"chapter":0,"step":0,"scores":{"4":{"right":1,"asked":1,"steps":{"0":true}}}}`, "scores: chapter 4: step 0"},
		{"larger than 1 MiB", `{"done":[` + strings.Repeat("1,", maxProgressBytes/2) + `1]}`, "larger than 1 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newProgressFile(t)
			os.WriteFile(f.path, []byte(c.content), 0o644)
			p, err := f.load()
			if err == nil || !strings.Contains(err.Error(), c.why) || !reflect.DeepEqual(p, app.Progress{}) {
				t.Fatalf("load: %+v, %v; want no progress and %q", p, err, c.why)
			}
			next := app.Progress{Done: []int{1}, Chapter: 1, Step: 2}
			err = f.save(next)
			var notice *app.ProgressNotice
			kept := f.path + ".bad-20261201T093000.123Z"
			if !errors.As(err, &notice) || !strings.Contains(notice.Msg, "progress.json could not be read (") ||
				!strings.Contains(notice.Msg, c.why) || !strings.Contains(notice.Msg, "kept as progress.json.bad-20261201T093000.123Z") {
				t.Fatalf("first save: %v", err)
			}
			if old, err := os.ReadFile(kept); err != nil || string(old) != c.content {
				t.Fatalf("the unreadable file is not kept as it was: %v", err)
			}
			if got, _ := f.load(); !reflect.DeepEqual(got, next) {
				t.Fatalf("after the save: %+v", got)
			}
			if err := f.save(next); err != nil {
				t.Fatalf("the notice is said once; second save: %v", err)
			}
			if entries, _ := os.ReadDir(filepath.Dir(f.path)); len(entries) != 2 {
				t.Fatalf("%d files in the state directory, want progress.json and the kept one", len(entries))
			}
		})
	}
}

// What the lab writes loads back unchanged, and so do files written
// before scores existed; nothing is kept aside for them.
func TestProgressRoundTrip(t *testing.T) {
	for _, p := range []app.Progress{
		{},
		{Done: []int{1, 2, 24}, Chapter: 5, Step: 3},
		{Done: []int{}, Chapter: 19, Step: 1, Scores: map[int]app.Score{19: {Right: 1, Asked: 2, Steps: map[int]bool{2: true, 4: false}}, 7: {Right: 3, Asked: 3}}},
	} {
		f := newProgressFile(t)
		if err := f.save(p); err != nil {
			t.Fatal(err)
		}
		got, err := f.load()
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(p)
		if err != nil || string(a) != string(b) {
			t.Fatalf("round trip: %s, %v; want %s", a, err, b)
		}
		if info, err := os.Stat(f.path); err != nil || info.Mode().Perm() != 0o644 {
			t.Fatalf("file mode: %v %v", info, err)
		}
	}
	f := newProgressFile(t)
	os.WriteFile(f.path, []byte(`{"done":[5],"chapter":5,"step":2}`), 0o644)
	if p, err := f.load(); err != nil || p.Chapter != 5 || f.bad != nil {
		t.Fatalf("an old file: %+v %v", p, err)
	}
	if _, err := f.load(); err != nil {
		t.Fatal(err)
	}
	f = newProgressFile(t)
	if _, err := f.load(); !errors.Is(err, os.ErrNotExist) || f.bad != nil {
		t.Fatalf("no file yet: %v", err)
	}
}

// A save that cannot finish leaves the old file whole and no temporary
// file behind.
func TestProgressWriteIsAtomic(t *testing.T) {
	f := newProgressFile(t)
	old := app.Progress{Done: []int{1}, Chapter: 2, Step: 1}
	if err := f.save(old); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(old)
	// A directory where the temporary file would go cannot be written:
	// the save fails before touching progress.json.
	dir := filepath.Dir(f.path)
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o755)
	if os.Getuid() != 0 {
		if err := f.save(app.Progress{Done: []int{1, 2}}); err == nil {
			t.Fatal("a save into a read-only directory succeeded")
		}
	}
	os.Chmod(dir, 0o755)
	if got, _ := os.ReadFile(f.path); string(got) != string(data) {
		t.Fatalf("the old file changed: %s", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d files left in the state directory", len(entries))
	}
}

// A save whose rename fails (progress.json is a directory here) removes
// its temporary file.
func TestProgressFailedSaveLeavesNoTemporaryFile(t *testing.T) {
	f := newProgressFile(t)
	os.MkdirAll(filepath.Join(f.path, "x"), 0o755)
	if err := f.save(app.Progress{Done: []int{1}}); err == nil {
		t.Fatal("a save over a directory succeeded")
	}
	entries, _ := os.ReadDir(filepath.Dir(f.path))
	if len(entries) != 1 || entries[0].Name() != "progress.json" {
		t.Fatalf("left in the state directory: %v", entries)
	}
}
