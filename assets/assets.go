// Package assets holds files eoslab ships: a small real Kafka segment
// file to inspect at once, and the example lesson for authors.
package assets

import "embed"

// SamplePath is the sample segment's path inside FS and in the repository.
const SamplePath = "sample/00000000000000000000.log"

// FS is the embedded assets tree (read-only).
//
//go:embed sample
//go:embed logo.txt scripts/*.eos
var FS embed.FS
