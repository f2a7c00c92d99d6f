package hist

// Map is a map from which copies are made in constant time: Clone starts
// a layer of its own for the copy, which reads through to what the
// original held at that moment, and the original goes on writing into its
// own layer, in a new epoch that the copy does not see. An entry
// overwritten after a Clone keeps its old value for the copies that saw
// it. Layers that grow deep (copies of copies of copies...) are flattened.
//
// A Map must be copied only with Clone.
type Map[K comparable, V any] struct {
	l *layer[K, V]
}

type layer[K comparable, V any] struct {
	m      map[K]entry[V]
	old    map[K][]entry[V] // values overwritten in a later epoch, oldest first
	epoch  uint32           // the epoch this layer's owner writes in
	parent *layer[K, V]
	pepoch uint32 // the parent's entries up to this epoch are visible
	depth  int
}

type entry[V any] struct {
	v     V
	epoch uint32
}

// maxDepth is how many layers a lookup may have to look through.
const maxDepth = 6

// Get returns the value for k.
func (m *Map[K, V]) Get(k K) (V, bool) {
	l := m.l
	if l == nil {
		var zero V
		return zero, false
	}
	if e, ok := l.m[k]; ok {
		return e.v, true
	}
	for limit, p := l.pepoch, l.parent; p != nil; limit, p = p.pepoch, p.parent {
		if e, ok := p.m[k]; ok {
			if e.epoch <= limit {
				return e.v, true
			}
			if v, ok := p.older(k, limit); ok {
				return v, true
			}
		}
	}
	var zero V
	return zero, false
}

func (l *layer[K, V]) older(k K, limit uint32) (V, bool) {
	olds := l.old[k]
	for i := len(olds) - 1; i >= 0; i-- {
		if olds[i].epoch <= limit {
			return olds[i].v, true
		}
	}
	var zero V
	return zero, false
}

// Set sets the value for k.
func (m *Map[K, V]) Set(k K, v V) {
	l := m.l
	if l == nil {
		l = &layer[K, V]{m: map[K]entry[V]{}}
		m.l = l
	}
	if l.m == nil {
		l.m = map[K]entry[V]{}
	}
	if e, ok := l.m[k]; ok && e.epoch != l.epoch {
		if l.old == nil {
			l.old = map[K][]entry[V]{}
		}
		l.old[k] = append(l.old[k], e)
	}
	l.m[k] = entry[V]{v: v, epoch: l.epoch}
}

// Clone returns a Map with m's contents that changes independently of m.
func (m *Map[K, V]) Clone() Map[K, V] {
	l := m.l
	if l == nil {
		return Map[K, V]{}
	}
	if len(l.m) == 0 {
		// Nothing of its own: the copy reads what m reads.
		if l.parent == nil {
			return Map[K, V]{}
		}
		return Map[K, V]{l: &layer[K, V]{parent: l.parent, pepoch: l.pepoch, depth: l.depth}}
	}
	c := &layer[K, V]{parent: l, pepoch: l.epoch, depth: l.depth + 1}
	l.epoch++ // m writes on in an epoch the copy does not see
	if c.depth > maxDepth {
		c = c.flatten()
	}
	return Map[K, V]{l: c}
}

// flatten copies what a layer sees into a layer without parents.
func (l *layer[K, V]) flatten() *layer[K, V] {
	out := &layer[K, V]{m: map[K]entry[V]{}}
	// Oldest ancestors first, so that nearer layers overwrite them.
	var chain []*layer[K, V]
	var limits []uint32
	limit := ^uint32(0)
	for p := l; p != nil; limit, p = p.pepoch, p.parent {
		chain = append(chain, p)
		limits = append(limits, limit)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		p, limit := chain[i], limits[i]
		for k, e := range p.m {
			if e.epoch <= limit {
				out.m[k] = entry[V]{v: e.v}
			} else if v, ok := p.older(k, limit); ok {
				out.m[k] = entry[V]{v: v}
			}
		}
	}
	return out
}
