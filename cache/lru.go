package cache

import (
	"container/list"
	"hash/maphash"
	"sync"
)

// lru is the in-process tier: a byte-bounded LRU split into shards so that
// concurrent hits rarely contend. It is safe for concurrent use.
type lru struct {
	seed    maphash.Seed
	shards  [nShards]shard
	onEvict func()
}

const nShards = 16

type shard struct {
	mu       sync.Mutex // guards the fields below
	items    map[string]*list.Element
	order    *list.List // front = most recently used
	bytes    int64
	maxBytes int64
}

type item struct {
	key   string
	e     *Entry
	bytes int64
}

func newLRU(maxBytes int64, onEvict func()) *lru {
	l := &lru{seed: maphash.MakeSeed(), onEvict: onEvict}
	for i := range l.shards {
		l.shards[i] = shard{items: map[string]*list.Element{}, order: list.New(), maxBytes: maxBytes / nShards}
	}
	return l
}

func (l *lru) shard(key string) *shard {
	return &l.shards[maphash.String(l.seed, key)%nShards]
}

func entrySize(key string, e *Entry) int64 {
	return int64(len(key)+len(e.Body)+len(e.ContentType)) + 128
}

func (l *lru) get(key string) (*Entry, bool) {
	s := l.shard(key)
	s.mu.Lock()
	el, ok := s.items[key]
	if !ok {
		s.mu.Unlock()
		return nil, false
	}
	s.order.MoveToFront(el)
	e := el.Value.(*item).e
	s.mu.Unlock()
	return e, true
}

func (l *lru) set(key string, e *Entry) {
	s := l.shard(key)
	size := entrySize(key, e)
	if size > s.maxBytes/8+1 {
		// Entries larger than 1/8 of a shard would churn it; Redis keeps them.
		l.remove(key)
		return
	}
	s.mu.Lock()
	if el, ok := s.items[key]; ok {
		it := el.Value.(*item)
		s.bytes += size - it.bytes
		it.e, it.bytes = e, size
		s.order.MoveToFront(el)
	} else {
		s.items[key] = s.order.PushFront(&item{key, e, size})
		s.bytes += size
	}
	evicted := 0
	for s.bytes > s.maxBytes && s.order.Len() > 0 {
		el := s.order.Back()
		it := el.Value.(*item)
		s.order.Remove(el)
		delete(s.items, it.key)
		s.bytes -= it.bytes
		evicted++
	}
	s.mu.Unlock()
	for ; evicted > 0 && l.onEvict != nil; evicted-- {
		l.onEvict()
	}
}

func (l *lru) remove(key string) {
	s := l.shard(key)
	s.mu.Lock()
	if el, ok := s.items[key]; ok {
		s.bytes -= el.Value.(*item).bytes
		s.order.Remove(el)
		delete(s.items, key)
	}
	s.mu.Unlock()
}

// purge removes every key with prefix and returns how many.
func (l *lru) purge(prefix string) int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		for k, el := range s.items {
			if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
				s.bytes -= el.Value.(*item).bytes
				s.order.Remove(el)
				delete(s.items, k)
				n++
			}
		}
		s.mu.Unlock()
	}
	return n
}
