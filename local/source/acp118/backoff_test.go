package acp118

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// signShort asks n for a signature with a short deadline (the time a hung
// validator costs).
func signShort(c *Client, n *node, msg string) ([]byte, error) {
	return signWithin(c, n, msg, 250*time.Millisecond)
}

// signOK signs where the node answers: a generous deadline, since a dial
// and handshake under the race detector on a loaded machine can take far
// longer than signShort allows.
func signOK(c *Client, n *node, msg string) ([]byte, error) {
	return signWithin(c, n, msg, 20*time.Second)
}

func signWithin(c *Client, n *node, msg string, d time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return c.Sign(ctx, n.id.NodeID(), [32]byte{1}, []byte(msg), nil)
}

// TestHungValidatorBackoff: a validator that completes the handshake and
// then never answers costs one timeout per backoff period: its connection is
// closed, the calls within the period fail with ErrBackoff without reaching
// it, and after the period it is dialled and asked again; the period doubles
// while it stays hung and resets once it answers.
func TestHungValidatorBackoff(t *testing.T) {
	n := newNode(t, 7)
	clock := newFakeClock()
	c := newClient(t, 7, ClientOptions{Backoff: 30 * time.Second, MaxBackoff: 2 * time.Minute, Now: clock.Now}, n)
	if sig, err := signOK(c, n, "warm"); err != nil || string(sig) != "sig:warm" {
		t.Fatalf("before the hang: %q, %v", sig, err)
	}
	n.hang.Store(true)

	// wantAsked checks what the node saw: connections and requests.
	wantAsked := func(t *testing.T, accepts, requests int32) {
		t.Helper()
		if a, r := n.accepts.Load(), n.requests.Load(); a != accepts || r != requests {
			t.Fatalf("the node saw %d connections and %d requests; want %d and %d", a, r, accepts, requests)
		}
	}
	// hungFor asks count times: the first call times out, the others are
	// backed off.
	hungFor := func(t *testing.T, count int) {
		t.Helper()
		for i := range count {
			_, err := signShort(c, n, "m")
			want := ErrBackoff
			if i == 0 {
				want = ErrTimeout
			}
			if !errors.Is(err, want) {
				t.Fatalf("call %d: %v; want %v", i, err, want)
			}
		}
	}

	hungFor(t, 10)
	wantAsked(t, 1, 2) // one timeout for ten calls, on the kept connection
	waitFor(t, "the hung connection closed", func() bool { return n.closed.Load() == 1 })

	clock.Add(29 * time.Second)
	if _, err := signShort(c, n, "m"); !errors.Is(err, ErrBackoff) {
		t.Fatalf("1s before the period ends: %v; want ErrBackoff", err)
	}
	clock.Add(time.Second)
	hungFor(t, 10) // asked again after the period: a new connection
	wantAsked(t, 2, 3)

	// The period doubled: 60s.
	clock.Add(59 * time.Second)
	if _, err := signShort(c, n, "m"); !errors.Is(err, ErrBackoff) {
		t.Fatalf("59s after the second timeout: %v; want ErrBackoff", err)
	}
	clock.Add(time.Second)
	hungFor(t, 1)
	wantAsked(t, 3, 4)
	clock.Add(2 * time.Minute) // 120s, then the cap
	hungFor(t, 1)
	clock.Add(2 * time.Minute)
	wantAsked(t, 4, 5)

	// It answers again: the backoff resets to 30s.
	n.hang.Store(false)
	if sig, err := signOK(c, n, "back"); err != nil || string(sig) != "sig:back" {
		t.Fatalf("after the hang: %q, %v", sig, err)
	}
	wantAsked(t, 5, 6)
	n.hang.Store(true)
	hungFor(t, 3)
	clock.Add(30 * time.Second)
	hungFor(t, 1)
	wantAsked(t, 6, 8)
}

// TestConcurrentTimeoutsCountOnce: requests in flight together on a hung
// validator time out together; the backoff doubles once, and the requests
// that fail by the drop do not redial.
func TestConcurrentTimeoutsCountOnce(t *testing.T) {
	n := newNode(t, 7)
	clock := newFakeClock()
	c := newClient(t, 7, ClientOptions{Backoff: 30 * time.Second, Now: clock.Now}, n)
	if _, err := signOK(c, n, "warm"); err != nil {
		t.Fatal(err)
	}
	n.hang.Store(true)
	var wg sync.WaitGroup
	var timeouts, others atomic.Int32
	for range 8 {
		wg.Go(func() {
			_, err := signShort(c, n, "m")
			switch {
			case errors.Is(err, ErrTimeout):
				timeouts.Add(1)
			case errors.Is(err, ErrBackoff), errors.Is(err, ErrClosed):
				others.Add(1)
			default:
				t.Errorf("concurrent call: %v", err)
			}
		})
	}
	wg.Wait()
	if timeouts.Load() == 0 || timeouts.Load()+others.Load() != 8 {
		t.Fatalf("%d timeouts and %d others of 8", timeouts.Load(), others.Load())
	}
	if a := n.accepts.Load(); a != 1 {
		t.Fatalf("%d connections; want 1 (no redial during the backoff)", a)
	}
	clock.Add(30 * time.Second) // one period, not a doubled one
	n.hang.Store(false)
	if sig, err := signOK(c, n, "back"); err != nil || string(sig) != "sig:back" {
		t.Fatalf("after one period: %q, %v", sig, err)
	}
}

func TestBackoffTable(t *testing.T) {
	b := backoffs{first: 30 * time.Second, max: 2 * time.Minute, byNode: map[avax.NodeID]backoff{}}
	t0 := time.Unix(0, 0)
	a, z := avax.NodeID{1}, avax.NodeID{2}
	steps := []struct {
		at, period, until time.Duration // a timeout at, then the period and its end
	}{
		{0, 30 * time.Second, 30 * time.Second},
		{10 * time.Second, 30 * time.Second, 30 * time.Second}, // within the period: counted once
		{30 * time.Second, time.Minute, 90 * time.Second},
		{90 * time.Second, 2 * time.Minute, 210 * time.Second},
		{210 * time.Second, 2 * time.Minute, 330 * time.Second}, // capped
		// Its backoff ended at 330s; a whole cap later it starts afresh.
		{450 * time.Second, 30 * time.Second, 480 * time.Second},
	}
	for _, s := range steps {
		b.timedOut(a, t0.Add(s.at))
		if got := b.byNode[a]; got.period != s.period || got.until.Sub(t0) != s.until {
			t.Fatalf("timeout at %v: period %v until %v; want %v until %v", s.at, got.period, got.until.Sub(t0), s.period, s.until)
		}
	}
	if err := b.wait(a, t0.Add(479*time.Second)); !errors.Is(err, ErrBackoff) {
		t.Fatalf("within the period: %v", err)
	}
	// The table forgets validators a cap after their backoff ended.
	b.timedOut(z, t0.Add(480*time.Second+2*time.Minute))
	if _, ok := b.byNode[a]; ok || len(b.byNode) != 1 {
		t.Fatalf("table %v; want only the recent timeout", b.byNode)
	}
	b.answered(z)
	if len(b.byNode) != 0 {
		t.Fatalf("an answer left %v", b.byNode)
	}
}

// waitFor polls cond for up to 5s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 5s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
