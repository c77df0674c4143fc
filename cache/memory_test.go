package cache

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestMemoryEvictsByBytes(t *testing.T) {
	const bound = 1 << 20
	var evicted int
	m := newMemory(bound)
	m.onEvict = func() { evicted++ }
	body := make([]byte, 4<<10)
	for i := 0; i < 1000; i++ {
		m.set(fmt.Sprintf("k%d", i), &Entry{Body: body})
	}
	bytes, entries := m.stats()
	if bytes > bound {
		t.Fatalf("held %d bytes; want at most %d", bytes, bound)
	}
	if wantMin := int64(bound - 2*entrySize("k999", &Entry{Body: body})); bytes < wantMin {
		t.Fatalf("held %d bytes; want close to the bound %d", bytes, bound)
	}
	if evicted != 1000-entries {
		t.Fatalf("evictions = %d; want %d", evicted, 1000-entries)
	}
	if m.get("k999") == nil {
		t.Fatal("newest entry evicted")
	}
	if m.get("k0") != nil {
		t.Fatal("oldest unvisited entry kept")
	}
}

func TestMemoryKeepsVisitedEntries(t *testing.T) {
	body := make([]byte, 1000)
	size := entrySize("k00", &Entry{Body: body})
	m := newMemory(10 * size) // room for ten
	for i := 0; i < 10; i++ {
		m.set(fmt.Sprintf("k%02d", i), &Entry{Body: body})
	}
	m.get("k00") // the oldest, but in use
	for i := 10; i < 30; i++ {
		m.set(fmt.Sprintf("k%02d", i), &Entry{Body: body})
		m.get("k00")
	}
	if m.get("k00") == nil {
		t.Fatal("an entry read between every insertion was evicted")
	}
	if m.get("k01") != nil {
		t.Fatal("an old entry never read was kept")
	}
}

func TestMemoryLargeEntries(t *testing.T) {
	const bound = 1 << 20
	tests := []struct {
		name string
		body int
		kept bool
	}{
		{"small", 1 << 10, true},
		{"an eighth", bound/8 - nodeOverhead - 1, true},
		{"over an eighth", bound / 8, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemory(bound)
			m.set("old", &Entry{Body: make([]byte, tt.body)})
			m.set("k", &Entry{Body: make([]byte, 10)})
			m.set("k", &Entry{Body: make([]byte, tt.body)})
			if got := m.get("k") != nil && len(m.get("k").Body) == tt.body; got != tt.kept {
				t.Fatalf("kept = %v; want %v", got, tt.kept)
			}
		})
	}
}

func TestMemoryReplaceRemovePurge(t *testing.T) {
	m := newMemory(1 << 20)
	e1, e2 := &Entry{Body: []byte("1")}, &Entry{Body: []byte("2")}
	m.set("a|1", e1)
	m.set("a|1", e2)
	m.set("a|2", e1)
	m.set("b|1", e1)
	if got := m.get("a|1"); got != e2 {
		t.Fatalf("get after replace = %p; want %p", got, e2)
	}
	m.remove("a|1", e1) // not the entry held: kept
	if m.get("a|1") == nil {
		t.Fatal("remove of an older entry dropped a newer one")
	}
	if n := m.purge("a|"); n != 2 {
		t.Fatalf("purge = %d; want 2", n)
	}
	if bytes, entries := m.stats(); entries != 1 || bytes != entrySize("b|1", e1) {
		t.Fatalf("stats = %d bytes, %d entries; want %d, 1", bytes, entries, entrySize("b|1", e1))
	}
}

func TestMemoryConcurrent(t *testing.T) {
	m := newMemory(64 << 10)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				k := fmt.Sprintf("k%d", (i*7+g)%300)
				if i%3 == 0 {
					m.set(k, &Entry{Body: make([]byte, 500), StoredAt: time.Unix(int64(i), 0)})
				} else if e := m.get(k); e != nil && len(e.Body) != 500 {
					t.Errorf("body %d bytes", len(e.Body))
				}
				if i%500 == 0 {
					m.purge("k1")
				}
			}
		}()
	}
	wg.Wait()
	bytes, entries := m.stats()
	var walked int
	var sum int64
	for n := m.head; n != nil; n = n.next {
		walked++
		sum += n.size
	}
	if walked != entries || sum != bytes || bytes > 64<<10 {
		t.Fatalf("list %d nodes/%d bytes, stats %d/%d, bound %d", walked, sum, entries, bytes, 64<<10)
	}
}
