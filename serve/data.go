package serve

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/eoslab/eoslab/internal/fileio"
)

// dataEvery bounds how often segment files are rewritten while the log
// grows: a file is replaced whole (atomically) when it changed.
const dataEvery = 250 * time.Millisecond

// writeData writes the partitions' segment files (Config.DataDir) when
// the world changed, at most every dataEvery, and at shutdown.
func (s *Server) writeData() {
	if s.cfg.DataDir == "" {
		return
	}
	w := s.eng.World()
	final := s.dataAt < 0
	if !final && w.Steps() == s.dataSteps {
		return
	}
	if !final && time.Since(s.dataWritten) < dataEvery {
		s.dataDirty = true
		return
	}
	s.dataSteps, s.dataWritten, s.dataDirty = w.Steps(), time.Now(), false
	if s.dataSizes == nil {
		s.dataSizes = map[string]int64{}
	}
	for _, f := range w.SegmentFiles() {
		path := filepath.Join(s.cfg.DataDir, f.Partition, f.Name)
		if size, ok := s.dataSizes[path]; ok && size == f.Size {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			s.dataErr(err)
			return
		}
		if err := fileio.WriteAtomic(path, f.Data()); err != nil {
			s.dataErr(err)
			return
		}
		s.dataSizes[path] = f.Size
	}
}

func (s *Server) dataErr(err error) {
	if s.err == nil {
		s.err = errors.New("--data: " + err.Error())
		s.logf("%v", s.err)
	}
}
