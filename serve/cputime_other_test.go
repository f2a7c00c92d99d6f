//go:build !unix

package serve

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
