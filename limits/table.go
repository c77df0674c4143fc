package limits

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// table holds per-client state by identity. Entries idle for longer than
// idle are removed by sweep, and when a flood of new clients grows the table
// past max, the least recently used go first, so its memory stays bounded.
// It is safe for concurrent use.
type table[S any] struct {
	m     sync.Map // identity -> *entry[S]
	n     atomic.Int64
	max   int64
	idle  time.Duration
	keep  func(id string) bool         // never evicted (the keys file's own keys); may be nil
	evict func(id string, e *entry[S]) // called for each removed entry; may be nil

	sweeping sync.Mutex // one sweep at a time
}

// entry is one client's state and when it was last used.
type entry[S any] struct {
	last atomic.Int64 // unix ns, updated at most every 100ms
	s    S
}

// get returns id's entry, creating it.
func (t *table[S]) get(id string, now time.Time) *entry[S] {
	v, ok := t.m.Load(id)
	if !ok {
		e := &entry[S]{}
		e.last.Store(now.UnixNano())
		if v, ok = t.m.LoadOrStore(id, e); !ok {
			if t.n.Add(1) > t.max+t.max/8 {
				t.sweep(now, true)
			}
		}
	}
	e := v.(*entry[S])
	if ns := now.UnixNano(); ns-e.last.Load() > int64(100*time.Millisecond) {
		e.last.Store(ns)
	}
	return e
}

// sweep removes entries idle since before now-idle and, when the table
// still holds more than max (or full is set and it is over max), the least
// recently used down to three quarters of max.
func (t *table[S]) sweep(now time.Time, full bool) {
	t.sweeping.Lock()
	defer t.sweeping.Unlock()
	if full && t.n.Load() <= t.max {
		return // another sweep made room
	}
	cut := now.Add(-t.idle).UnixNano()
	var lasts []int64
	t.m.Range(func(k, v any) bool {
		id, e := k.(string), v.(*entry[S])
		if t.keep != nil && t.keep(id) {
			return true
		}
		if l := e.last.Load(); l < cut {
			t.remove(id, e)
		} else {
			lasts = append(lasts, l)
		}
		return true
	})
	if t.n.Load() <= t.max {
		return
	}
	slices.Sort(lasts)
	drop := int(t.n.Load() - t.max*3/4)
	if drop <= 0 || len(lasts) == 0 {
		return
	}
	cut = lasts[min(drop, len(lasts))-1]
	t.m.Range(func(k, v any) bool {
		id, e := k.(string), v.(*entry[S])
		if (t.keep == nil || !t.keep(id)) && e.last.Load() <= cut {
			t.remove(id, e)
		}
		return t.n.Load() > t.max*3/4
	})
}

func (t *table[S]) remove(id string, e *entry[S]) {
	if t.m.CompareAndDelete(id, e) {
		t.n.Add(-1)
		if t.evict != nil {
			t.evict(id, e)
		}
	}
}

// len returns how many entries the table holds.
func (t *table[S]) len() int64 { return t.n.Load() }

// liveMu is a per-client state's mutex and its dead mark, set when the
// state is removed from its table.
type liveMu struct {
	mu   sync.Mutex // guards the state it is part of
	dead bool       // removed from the table: get a new one
}

// lockLive locks l and reports true, or reports false when it is dead.
func (l *liveMu) lockLive() bool {
	l.mu.Lock()
	if l.dead {
		l.mu.Unlock()
		return false
	}
	return true
}

// markDead marks l dead: its state was removed from its table.
func (l *liveMu) markDead() {
	l.mu.Lock()
	l.dead = true
	l.mu.Unlock()
}

// liveState is a per-client state with a liveMu.
type liveState[S any] interface {
	*S
	// lockLive locks the state and reports true, or reports false (and
	// leaves it unlocked) when it is dead.
	lockLive() bool
}

// getLocked returns id's state, locked; a state removed from the table
// meanwhile is dead, and a fresh one is taken.
func getLocked[S any, P liveState[S]](t *table[S], id string, now time.Time) P {
	for {
		if p := P(&t.get(id, now).s); p.lockLive() {
			return p
		}
	}
}
