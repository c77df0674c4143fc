package edgetls

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"testing"
	"time"

	"github.com/avaedge/avaedge/internal/redistest"
)

func TestRedisStorage(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	a := &RedisStorage{Client: srv.Client(), Prefix: "t"}
	b := &RedisStorage{Client: srv.Client(), Prefix: "t", LockTTL: time.Second}

	if _, err := a.Load(ctx, "certificates/x/x.crt"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing key: %v", err)
	}
	for _, k := range []string{"certificates/ca/edge.test/edge.test.crt", "certificates/ca/edge.test/edge.test.key", "acme/ca/users/ops/ops.json"} {
		if err := a.Store(ctx, k, []byte("v:"+k)); err != nil {
			t.Fatal(err)
		}
	}
	// The other replica sees them.
	v, err := b.Load(ctx, "certificates/ca/edge.test/edge.test.crt")
	if err != nil || string(v) != "v:certificates/ca/edge.test/edge.test.crt" {
		t.Fatalf("load = %q, %v", v, err)
	}
	if !b.Exists(ctx, "acme/ca/users/ops/ops.json") || b.Exists(ctx, "nope") {
		t.Fatal("exists")
	}
	list, _ := b.List(ctx, "certificates", false)
	if len(list) != 1 || list[0] != "certificates/ca" {
		t.Fatalf("list = %v", list)
	}
	list, _ = b.List(ctx, "certificates", true)
	sort.Strings(list)
	if len(list) != 2 {
		t.Fatalf("recursive list = %v", list)
	}
	st, err := b.Stat(ctx, "certificates/ca/edge.test/edge.test.key")
	if err != nil || !st.IsTerminal || st.Size == 0 || st.Modified.IsZero() {
		t.Fatalf("stat = %+v %v", st, err)
	}
	if st, err := b.Stat(ctx, "certificates/ca"); err != nil || st.IsTerminal {
		t.Fatalf("stat dir = %+v %v", st, err)
	}
	if err := b.Delete(ctx, "certificates/ca/edge.test"); err != nil || a.Exists(ctx, "certificates/ca/edge.test/edge.test.key") {
		t.Fatalf("delete: %v", err)
	}

	// Locks are exclusive across replicas.
	if err := a.Lock(ctx, "issue_cert_edge.test"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if err := b.Lock(short, "issue_cert_edge.test"); err == nil {
		t.Fatal("second replica took a held lock")
	}
	got := make(chan error, 1)
	go func() { got <- b.Lock(ctx, "issue_cert_edge.test") }()
	time.Sleep(100 * time.Millisecond)
	if err := a.Unlock(ctx, "issue_cert_edge.test"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("lock not handed over after unlock")
	}
	if err := a.Unlock(ctx, "issue_cert_edge.test"); err == nil {
		t.Fatal("unlocked a lock this replica does not hold")
	}
	b.Unlock(ctx, "issue_cert_edge.test")
}
