package sim

// Due reports whether something is due: whether a step would do anything.
// A paused process's items wait for it and do not count. It is the
// snapshot's Due without building the rest of a snapshot.
func (w *World) Due() bool {
	for _, it := range w.queue.items() {
		if w.live(it) && w.pausedOwner(it) == nil {
			return true
		}
	}
	return false
}
