package cache

import (
	"context"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
)

const benchKey = "data|getLatestBlocks|/v1/chains/43114/blocks|pageSize=10"

// benchEntry is a ~4 KB JSON page, as in deploy/bench.
func benchEntry() *Entry {
	body := []byte(`{"blocks":[`)
	for len(body) < 4000 {
		body = append(body, `{"blockNumber":"12345678","blockHash":"0x3f1a9e0c7b2d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789ab"},`...)
	}
	body = append(body[:len(body)-1], "]}"...)
	return &Entry{Status: 200, ContentType: "application/json", Body: body, StoredAt: time.Now(), FreshFor: time.Hour}
}

// BenchmarkDoHitMemory is the in-process hit path: must not allocate.
func BenchmarkDoHitMemory(b *testing.B) {
	c := mustNew(b, Options{})
	ctx := context.Background()
	e := benchEntry()
	c.Set(ctx, benchKey, e)
	fetch := func(context.Context) (*Entry, error) { return e, nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, st, _ := c.Do(ctx, benchKey, false, fetch); st != Hit {
			b.Fatal(st)
		}
	}
}

// BenchmarkDoHitMemoryParallel is the in-process hit path with every core
// reading one hot key.
func BenchmarkDoHitMemoryParallel(b *testing.B) {
	c := mustNew(b, Options{})
	ctx := context.Background()
	e := benchEntry()
	c.Set(ctx, benchKey, e)
	fetch := func(context.Context) (*Entry, error) { return e, nil }
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, st, _ := c.Do(ctx, benchKey, false, fetch); st != Hit {
				b.Fatal(st)
			}
		}
	})
}

// BenchmarkDoHitRedis is a hit with the in-process tier disabled: one
// Redis GET on loopback, decompression included (the page is gzipped at
// rest).
func BenchmarkDoHitRedis(b *testing.B) {
	srv := redistest.Start(b)
	c := mustNew(b, Options{MaxBytes: -1, Redis: srv.Client(), RedisTimeout: time.Second})
	ctx := context.Background()
	e := benchEntry()
	c.Set(ctx, benchKey, e)
	fetch := func(context.Context) (*Entry, error) { return e, nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, st, _ := c.Do(ctx, benchKey, false, fetch); st != Hit {
			b.Fatal(st)
		}
	}
}

// BenchmarkMemorySet is an insertion into a full in-process tier.
func BenchmarkMemorySet(b *testing.B) {
	m := newMemory(1 << 20)
	e := benchEntry()
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = benchKey + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.set(keys[i%len(keys)], e)
		i++
	}
}
