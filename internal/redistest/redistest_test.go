package redistest

import (
	"context"
	"testing"
)

func TestStartAndCluster(t *testing.T) {
	ctx := context.Background()
	s := Start(t)
	if err := s.Client().Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("set: %v", err)
	}
	s.Restart()
	if err := s.Client().Ping(ctx).Err(); err != nil {
		t.Fatalf("ping after restart: %v", err)
	}
	s.RequireReal() // the cluster needs a real redis-server
	c := StartCluster(t, 3)
	cl := c.Client(t)
	for _, k := range []string{"a", "b", "c", "d"} {
		if err := cl.Set(ctx, k, k, 0).Err(); err != nil {
			t.Fatalf("cluster set %s: %v", k, err)
		}
	}
}
