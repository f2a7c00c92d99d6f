package app

import (
	"strings"
	"testing"
)

// noticeStore saves, and answers its first save with a notice, as the
// progress file does after keeping an unreadable file aside.
type noticeStore struct {
	memStore
	notice string
}

func (s *noticeStore) save(p Progress) error {
	if err := s.memStore.save(p); err != nil {
		return err
	}
	if n := s.notice; n != "" {
		s.notice = ""
		return &ProgressNotice{Msg: n}
	}
	return nil
}

// A notice from the store reaches the status bar the way a failure does,
// once, and saving goes on.
func TestProgressNoticeIsSaidOnceAndSavingGoesOn(t *testing.T) {
	const notice = "progress.json could not be read (unexpected end of JSON input): kept as progress.json.bad-x; starting afresh"
	store := &noticeStore{notice: notice}
	opt := scoredOptions(t, nil)
	opt.LoadProgress, opt.SaveProgress = store.load, store.save
	m := newModel(t, opt, 120, 40)
	m, _ = send(t, m, keyEnter, keyEnter) // opening a chapter saves
	if m.Status() != notice || store.saves != 1 {
		t.Fatalf("status %q after %d saves, want the notice", m.Status(), store.saves)
	}
	for range 5 {
		m, _ = send(t, m, keyRight)
	}
	if store.saves < 2 || strings.Contains(m.Status(), "will not be saved") {
		t.Fatalf("saving stopped after a notice: %d saves, status %q", store.saves, m.Status())
	}
}
