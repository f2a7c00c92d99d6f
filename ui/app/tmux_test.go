//go:build tmux

// A smoke test of the real binary in a real terminal (tmux), at 80×24 and
// 120×40: open a lesson, step forward and back, then in the sandbox lose
// an acknowledgement with the fault key and watch the retry recognised as
// a duplicate. Run it with:
//
//	go test -tags tmux -run TestTmux -v ./ui/app
//
// It needs tmux on the PATH. The captured screens are logged (-v), and so
// is the time from start to the first frame of Home.
package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type pane struct {
	t    *testing.T
	name string
}

func (p pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", args...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p pane) keys(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", p.name}, keys...)...)
}

func (p pane) text(s string) { p.t.Helper(); p.tmux("send-keys", "-t", p.name, "-l", s) }

func (p pane) capture() string { p.t.Helper(); return p.tmux("capture-pane", "-p", "-t", p.name) }

// waitFor polls the screen until it shows every one of texts.
func (p pane) waitFor(texts ...string) string {
	p.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		screen := p.capture()
		missing := ""
		for _, s := range texts {
			if !strings.Contains(screen, s) {
				missing = s
				break
			}
		}
		if missing == "" {
			return screen
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: %q never appeared; the screen:\n%s", p.name, missing, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p pane) command(line string) {
	p.t.Helper()
	p.keys(":")
	p.waitFor("tab completes")
	p.text(line)
	p.keys("Enter")
}

func TestTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "eoslab")
	if out, err := exec.Command("go", "build", "-o", bin, "../..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The peer of the start-up time: tmux and the shell printing a line.
	peer := pane{t, "eoslab-smoke-peer"}
	exec.Command("tmux", "kill-session", "-t", peer.name).Run()
	start := time.Now()
	peer.tmux("new-session", "-d", "-s", peer.name, "-x", "80", "-y", "24", "echo shell-ready; sleep 30")
	for !strings.Contains(peer.capture(), "shell-ready") && time.Since(start) < 10*time.Second {
		time.Sleep(2 * time.Millisecond)
	}
	t.Logf("peer: tmux and a shell printing a line: %v", time.Since(start).Round(time.Millisecond))
	exec.Command("tmux", "kill-session", "-t", peer.name).Run()
	for _, size := range [][2]string{{"80", "24"}, {"120", "40"}} {
		t.Run(size[0]+"x"+size[1], func(t *testing.T) {
			p := pane{t, "eoslab-smoke-" + size[0]}
			home := t.TempDir() // no progress from an earlier run
			exec.Command("tmux", "kill-session", "-t", p.name).Run()
			env := "env XDG_STATE_HOME=" + home + " XDG_CONFIG_HOME=" + home + " TERM=xterm-256color "
			start := time.Now()
			p.tmux("new-session", "-d", "-s", p.name, "-x", size[0], "-y", size[1], env+bin+"; echo exit status $?; sleep 30") // the shell keeps an error on screen
			t.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", p.name).Run() })
			// Start to the first frame of Home (budget 100 ms), tmux and the
			// shell included: reported, not checked (a timed test would fail
			// on a busy machine; docs/performance.md).
			for !strings.Contains(p.capture(), "Inspect a segment file") && time.Since(start) < 10*time.Second {
				time.Sleep(2 * time.Millisecond)
			}
			t.Logf("start to the first frame of Home: %v", time.Since(start).Round(time.Millisecond))
			smoke(t, p, size[0] == "80")
		})
	}
	os.Remove(bin)
}

func smoke(t *testing.T, p pane, small bool) {
	p.waitFor("Inspect a segment file", "seed 1")
	p.keys("Enter")
	p.waitFor("eoslab · chapters")
	p.keys("Enter")
	p.waitFor("Chapter 1 ·", "→ apply")
	p.keys("Right")
	p.waitFor("applied: ")
	for i := 0; i < 40 && !strings.Contains(p.capture(), " step 2 · "); i++ {
		p.keys("Right")
		time.Sleep(30 * time.Millisecond)
	}
	p.waitFor(" step 2 · ")
	p.keys("Left")
	t.Logf("lesson, one step back:\n%s", p.waitFor("◀ 1 ahead", "back at step 1 of 2"))
	p.keys("Right")
	p.waitFor(" step 2 · ")

	// The sandbox: an idempotent producer, an acknowledgement lost with
	// the fault key, the retry recognised as a duplicate.
	p.keys("Escape")
	p.waitFor("eoslab · chapters")
	p.keys("Escape")
	p.waitFor("Continue")
	p.keys("Down", "Down", "Enter")
	p.waitFor("Sandbox  ·")
	p.command("producer p1")
	p.waitFor("applied: producer p1")
	p.command("send p1 orders-0 2")
	p.waitFor("applied: send p1 orders-0 2")
	p.keys("a")
	t.Logf("the fault key shows its target first:\n%s", p.waitFor("lose response p1 ?", "the answer to p1's next produce request"))
	p.keys("Enter")
	p.waitFor("applied: lose response p1")
	for i := 0; i < 40 && !strings.Contains(p.capture(), "recognises pid 0 epoch 0 seq 0-1"); i++ {
		p.keys("Right")
		time.Sleep(20 * time.Millisecond)
	}
	if small {
		p.keys("Tab") // the window panel's tab
	}
	t.Logf("the duplicate:\n%s", p.waitFor("= incoming: duplicate", "⇒ DUPLICATE", "original offsets 0-1"))
	p.keys("C-c")
}
