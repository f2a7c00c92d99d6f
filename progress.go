package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/eoslab/eoslab/internal/fileio"
	"github.com/eoslab/eoslab/ui/app"
)

// progressStore keeps progress in $XDG_STATE_HOME/eoslab/progress.json
// (~/.local/state when unset). Without a home, progress is not kept.
func progressStore() (func() (app.Progress, error), func(app.Progress) error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, nil
		}
		dir = filepath.Join(home, ".local", "state")
	}
	f := &progressFile{path: filepath.Join(dir, "eoslab", "progress.json"), now: time.Now}
	return f.load, f.save
}

// progressFile is the learner's progress on disk: the chapters finished
// and the prediction scores, which took hours to earn. So it is never
// lost: a file that cannot be read is kept aside, not overwritten, and
// every write is atomic — a crash leaves the old file or the new one,
// never half of one.
type progressFile struct {
	path string
	now  func() time.Time // when a bad file is kept aside, for its name

	mu  sync.Mutex // saves run off the UI loop, possibly two at once
	bad error      // why the file on disk could not be read; kept aside at the next save
}

// maxProgressBytes bounds the file: a learner's progress through every
// chapter is a few KiB.
const maxProgressBytes = 1 << 20

// load reads the progress. A missing file is no progress (an error the
// lab ignores). A file that cannot be read — truncated, garbage, of the
// wrong shape, with numbers no run could have written — is no progress
// either, and is remembered: the next save keeps it aside first.
func (f *progressFile) load() (app.Progress, error) {
	data, err := fileio.ReadLimited(f.path, maxProgressBytes, "a progress file")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// Missing, or not ours to read (permissions): nothing to keep
		// aside, and a save will say what is wrong if it is.
		return app.Progress{}, err
	}
	if err == nil {
		var p app.Progress
		if p, err = decodeProgress(data); err == nil {
			return p, nil
		}
	}
	f.mu.Lock()
	f.bad = err
	f.mu.Unlock()
	return app.Progress{}, fmt.Errorf("%s: %w", f.path, err)
}

// decodeProgress parses a progress file and checks that it could have
// been written by the lab.
func decodeProgress(data []byte) (app.Progress, error) {
	var p app.Progress
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return p, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return app.Progress{}, err
	}
	return p, checkProgress(p)
}

// checkProgress finds what no run of the lab writes: chapters are
// numbered from 1, steps from 1 (0: none), and of a chapter's answered
// predictions at most all are right — each step's result once.
func checkProgress(p app.Progress) error {
	for _, n := range p.Done {
		if n < 1 {
			return fmt.Errorf("done: chapter %d", n)
		}
	}
	if p.Chapter < 0 || p.Step < 0 || (p.Chapter == 0 && p.Step != 0) {
		return fmt.Errorf("chapter %d, step %d", p.Chapter, p.Step)
	}
	for n, s := range p.Scores {
		if n < 1 || s.Right < 0 || s.Asked < 0 || s.Right > s.Asked {
			return fmt.Errorf("scores: chapter %d: %d right of %d", n, s.Right, s.Asked)
		}
		if len(s.Steps) == 0 {
			continue
		}
		right := 0
		for step, ok := range s.Steps {
			if step < 1 {
				return fmt.Errorf("scores: chapter %d: step %d", n, step)
			}
			if ok {
				right++
			}
		}
		if len(s.Steps) != s.Asked || right != s.Right {
			return fmt.Errorf("scores: chapter %d: %d right of %d, but its steps say %d of %d", n, s.Right, s.Asked, right, len(s.Steps))
		}
	}
	return nil
}

// badSuffix is the time in the name of a file kept aside: sortable, and
// without the colons some file systems refuse.
const badSuffix = "20060102T150405.000Z"

// save writes the progress atomically: a temporary file in the same
// directory, synced, renamed over the old one, and the directory synced
// so that the rename itself survives a crash. A file found unreadable at
// load is first renamed to progress.json.bad-TIME, and the save answers
// with a notice saying so, once.
func (f *progressFile) save(p app.Progress) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var notice error
	if f.bad != nil {
		kept := f.path + ".bad-" + f.now().UTC().Format(badSuffix)
		if err := os.Rename(f.path, kept); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("keeping the unreadable %s aside: %w", f.path, err)
		}
		notice = &app.ProgressNotice{Msg: fmt.Sprintf("%s could not be read (%v): kept as %s; progress starts afresh",
			filepath.Base(f.path), f.bad, filepath.Base(kept))}
		f.bad = nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if err := fileio.WriteAtomic(f.path, data); err != nil {
		return err
	}
	return notice
}
