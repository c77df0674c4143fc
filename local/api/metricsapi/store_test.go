package metricsapi

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/internal/pgtest"
)

// TestMain stops the PostgreSQL server the store tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// TestStandbyRefresh: two engines share the PostgreSQL store: the
// writer's applies blocks, rolls back and applies a fork; the other,
// refreshing, answers every metric as the oracle of the blocks that
// remain, and when it applies in turn it follows on.
func TestStandbyRefresh(t *testing.T) {
	ctx := context.Background()
	dbURL := pgtest.Shared(t).Database(t)
	open := func() *Engine {
		e, err := New(Options{Chains: testChains, URL: dbURL, Now: func() time.Time { return clock }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	writer, standby := open(), open()
	w := &world{e: standby, blocks: map[uint64][]*Block{
		43112: genChain(43112, 300, time.Date(2026, 1, 28, 21, 13, 0, 0, time.UTC), 1),
		43113: genChain(43113, 100, time.Date(2026, 2, 10, 3, 0, 0, 0, time.UTC), 2),
	}}
	a := w.blocks[43112]
	apply(t, writer, a[:250])
	if err := standby.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if h, ok := standby.Head(43112); !ok || h != a[249].Number {
		t.Fatalf("the standby's head %d, %v; want %d", h, ok, a[249].Number)
	}
	apply(t, writer, a[250:])
	apply(t, writer, w.blocks[43113])
	if err := writer.Rollback(ctx, 43112, a[200].Number); err != nil {
		t.Fatal(err)
	}
	fork := genChain(43112, 120, time.Unix(int64(a[199].Timestamp), 0), 5)
	for i, b := range fork {
		b.Number = a[200].Number + uint64(i)
	}
	apply(t, writer, fork)
	w.blocks[43112] = append(a[:200:200], fork...)
	if err := standby.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, chainID := range []string{"43112", "testnet"} {
		for _, metric := range catalog.MetricNames {
			for _, iv := range allowed(metric) {
				got := walk(t, standby, chainID, metric, url.Values{"timeInterval": {iv}, "pageSize": {"2160"}})
				if d := same(got, oracle(w.members(chainID), metric, iv)); d != "" {
					t.Fatalf("the standby: %s %s %s: %s", chainID, metric, iv, d)
				}
			}
		}
	}
	last := fork[len(fork)-1]
	if err := standby.Apply(ctx, &Block{ChainID: 43112, Number: last.Number + 1, Timestamp: last.Timestamp + 5}); err != nil {
		t.Fatal(err)
	}
}

// TestStoreReplay applies, rolls back and re-applies blocks with a store,
// restarts, and checks that the restarted engine answers like the oracle.
func TestStoreReplay(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testStoreReplay(t, Options{Path: filepath.Join(t.TempDir(), "metrics.db")}) })
	t.Run("postgres", func(t *testing.T) { testStoreReplay(t, Options{URL: pgtest.Shared(t).Database(t)}) })
}

func testStoreReplay(t *testing.T, where Options) {
	ctx := context.Background()
	open := func() *Engine {
		e, err := New(Options{Chains: testChains, Path: where.Path, URL: where.URL, Now: func() time.Time { return clock }})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	w := &world{blocks: map[uint64][]*Block{
		43112: genChain(43112, 300, time.Date(2026, 1, 28, 21, 13, 0, 0, time.UTC), 1),
		43113: genChain(43113, 100, time.Date(2026, 2, 10, 3, 0, 0, 0, time.UTC), 2),
	}}
	e := open()
	apply(t, e, w.blocks[43112])
	apply(t, e, w.blocks[43113])
	a := w.blocks[43112]
	if err := e.Rollback(ctx, 43112, a[200].Number); err != nil {
		t.Fatal(err)
	}
	fork := genChain(43112, 30, time.Unix(int64(a[199].Timestamp), 0), 5)
	for i, b := range fork {
		b.Number = a[200].Number + uint64(i)
	}
	apply(t, e, fork)
	w.blocks[43112] = append(a[:200:200], fork...)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	w.e = open()
	defer w.e.Close()
	if h, ok := w.e.Head(43112); !ok || h != fork[len(fork)-1].Number {
		t.Fatalf("Head = %d, %v; want %d", h, ok, fork[len(fork)-1].Number)
	}
	for _, chainID := range []string{"43112", "testnet"} {
		for _, metric := range catalog.MetricNames {
			for _, iv := range allowed(metric) {
				got := walk(t, w.e, chainID, metric, url.Values{"timeInterval": {iv}, "pageSize": {"2160"}})
				if d := same(got, oracle(w.members(chainID), metric, iv)); d != "" {
					t.Fatalf("%s %s %s: %s", chainID, metric, iv, d)
				}
			}
		}
	}
	// The restarted engine keeps going.
	last := fork[len(fork)-1]
	if err := w.e.Apply(ctx, &Block{ChainID: 43112, Number: last.Number + 1, Timestamp: last.Timestamp + 5}); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeRecRejects(t *testing.T) {
	in := &interner{ids: map[string]uint32{}}
	good := encodeRec(&blockRec{ts: 5, addrs: []uint32{in.id("0xa"), in.id("0xb")}, nSenders: 1}, in.names)
	if _, err := decodeRec(1, good, in); err != nil {
		t.Fatalf("decodeRec(good) = %v", err)
	}
	for name, b := range map[string][]byte{
		"empty":       nil,
		"version":     append([]byte{9}, good[1:]...),
		"truncated":   good[:len(good)-1],
		"trailing":    append(append([]byte{}, good...), 0),
		"huge length": {recVersion, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeRec(1, b, in); err == nil {
				t.Fatal("decodeRec = nil error")
			}
		})
	}
}

// FuzzDecodeRec: a stored record either decodes to one that re-encodes to
// the same bytes or is rejected; it never panics.
func FuzzDecodeRec(f *testing.F) {
	in := &interner{ids: map[string]uint32{}}
	f.Add(encodeRec(&blockRec{ts: 5, gas: 21000, txs: 1, addrs: []uint32{in.id("0xa")}, nSenders: 1}, in.names))
	f.Add([]byte{recVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRec(1, b, in)
		if err != nil {
			return
		}
		if got := encodeRec(&r, in.names); string(got) != string(b) {
			// Non-minimal varints and leading zero bytes in magnitudes
			// decode too; the re-encoding must decode to the same record.
			r2, err := decodeRec(1, got, in)
			if err != nil || r2.ts != r.ts || r2.gas != r.gas || len(r2.addrs) != len(r.addrs) {
				t.Fatalf("re-encoding of %x differs: %x", b, got)
			}
		}
	})
}
