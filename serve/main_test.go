package serve

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain checks that the tests leave no goroutine behind: every server
// closed its listeners, connections and loop, every client was closed.
func TestMain(m *testing.M) {
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			var ours []string
			for _, g := range strings.Split(stacks, "\n\n") {
				if strings.Contains(g, "serve.TestMain(") {
					continue // this goroutine, which reads the stacks
				}
				if strings.Contains(g, "eoslab/serve") || strings.Contains(g, "franz-go") {
					ours = append(ours, g)
				}
			}
			if len(ours) > 0 {
				fmt.Fprintf(os.Stderr, "%d goroutine(s) left behind (%d before the tests):\n%s\n", n, before, strings.Join(ours, "\n\n"))
				code = 1
			}
		}
	}
	os.Exit(code)
}
