package cache

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// memory is the in-process tier: a cache bounded by bytes that evicts with
// SIEVE (Zhang et al., "SIEVE is Simpler than LRU", NSDI '24), which keeps
// hot entries at least as well as LRU on web traces while a hit only sets a
// flag: lookups take a shard's read lock and never write shared state
// beyond that flag. Entries larger than an eighth of the bound are not kept.
// It is safe for concurrent use.
type memory struct {
	max      int64 // bound on bytes
	maxEntry int64 // larger entries are not kept
	seed     maphash.Seed
	shards   [memShards]memShard
	onEvict  func() // nil, or called outside any lock once per entry evicted for room; set before use

	mu    sync.Mutex // guards head, tail, hand, bytes, count and every node's prev and next
	head  *node      // newest
	tail  *node      // oldest
	hand  *node      // SIEVE's hand: the next eviction candidate, moving from tail to head
	bytes int64
	count int
}

// memShards spreads the index over several read-write locks, so readers on
// different cores rarely share a lock's cache line.
const memShards = 32

type memShard struct {
	mu    sync.RWMutex // guards items
	items map[string]*node
}

// node is one entry in the eviction queue. key, e and size never change
// after the node is made.
type node struct {
	key        string
	e          *Entry
	size       int64
	visited    atomic.Bool
	prev, next *node // toward head, toward tail
}

// nodeOverhead approximates the memory of a node, its Entry and its map
// slot beyond the key, content type and body.
const nodeOverhead = 192

func newMemory(maxBytes int64) *memory {
	m := &memory{max: maxBytes, maxEntry: maxBytes / 8, seed: maphash.MakeSeed()}
	for i := range m.shards {
		m.shards[i].items = make(map[string]*node)
	}
	return m
}

func (m *memory) shard(key string) *memShard {
	return &m.shards[maphash.String(m.seed, key)%memShards]
}

func entrySize(key string, e *Entry) int64 {
	return int64(len(key)+len(e.ContentType)+len(e.Body)) + nodeOverhead
}

// get returns the entry under key, or nil. It does not allocate.
func (m *memory) get(key string) *Entry {
	s := m.shard(key)
	s.mu.RLock()
	n := s.items[key]
	s.mu.RUnlock()
	if n == nil {
		return nil
	}
	if !n.visited.Load() { // read first: a hot entry's cache line stays shared
		n.visited.Store(true)
	}
	return n.e
}

// set stores e under key, replacing any entry there, and evicts until the
// tier is within its bound. An entry larger than maxEntry is not kept (and
// an older entry under key is dropped).
func (m *memory) set(key string, e *Entry) {
	size := entrySize(key, e)
	if size > m.maxEntry {
		m.remove(key, nil)
		return
	}
	n := &node{key: key, e: e, size: size}
	s := m.shard(key)
	m.mu.Lock()
	s.mu.Lock()
	old := s.items[key]
	s.items[key] = n
	s.mu.Unlock()
	if old != nil {
		m.unlink(old)
	}
	m.pushHead(n)
	evicted := 0
	for m.bytes > m.max && m.tail != nil {
		m.drop(m.victim())
		evicted++
	}
	m.mu.Unlock()
	for ; evicted > 0 && m.onEvict != nil; evicted-- {
		m.onEvict()
	}
}

// victim runs SIEVE's hand: from the hand (or the tail) toward the head,
// clearing visited flags, to the first unvisited node, which it returns.
// Readers may set flags again meanwhile, so after two laps it takes what
// it holds. m.mu must be held.
func (m *memory) victim() *node {
	o := m.hand
	if o == nil {
		o = m.tail
	}
	for lap := 0; lap < 2*m.count && o.visited.Load(); lap++ {
		o.visited.Store(false)
		if o = o.prev; o == nil {
			o = m.tail
		}
	}
	m.hand = o.prev
	return o
}

// remove drops the node under key when its entry is e (any entry when e is
// nil), so a caller never drops a newer entry than the one it looked at.
func (m *memory) remove(key string, e *Entry) {
	s := m.shard(key)
	m.mu.Lock()
	s.mu.Lock()
	n := s.items[key]
	if n != nil && (e == nil || n.e == e) {
		delete(s.items, key)
	} else {
		n = nil
	}
	s.mu.Unlock()
	if n != nil {
		m.unlink(n)
	}
	m.mu.Unlock()
}

// purge drops every entry whose key starts with prefix and returns how many.
func (m *memory) purge(prefix string) int {
	dropped := 0
	m.mu.Lock()
	for n := m.head; n != nil; {
		next := n.next
		if strings.HasPrefix(n.key, prefix) {
			m.drop(n)
			dropped++
		}
		n = next
	}
	m.mu.Unlock()
	return dropped
}

// stats returns the bytes and entries held.
func (m *memory) stats() (bytes int64, entries int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes, m.count
}

// pushHead links n as the newest node. m.mu must be held.
func (m *memory) pushHead(n *node) {
	n.prev, n.next = nil, m.head
	if m.head != nil {
		m.head.prev = n
	}
	m.head = n
	if m.tail == nil {
		m.tail = n
	}
	m.bytes += n.size
	m.count++
}

// unlink removes n from the queue. m.mu must be held.
func (m *memory) unlink(n *node) {
	if m.hand == n {
		m.hand = n.prev
	}
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		m.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		m.tail = n.prev
	}
	n.prev, n.next = nil, nil
	m.bytes -= n.size
	m.count--
}

// drop removes n from its shard's index (unless a newer node replaced it
// there) and from the queue. The caller holds m.mu.
func (m *memory) drop(n *node) {
	s := m.shard(n.key)
	s.mu.Lock()
	if s.items[n.key] == n {
		delete(s.items, n.key)
	}
	s.mu.Unlock()
	m.unlink(n)
}
