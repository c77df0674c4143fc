package evm

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// DefaultCallsPerClient is Options.CallsPerClient's default.
const DefaultCallsPerClient = 2

// callSlots bounds the calls that run the EVM at once for each client. A
// batch's calls run one after another, each in its own slot, so a client
// holds at most its share of cores however it packs its calls. It is safe
// for concurrent use.
type callSlots struct {
	per int

	mu sync.Mutex // guards clients
	// clients holds the slots of each client with a call running or
	// waiting, by identity; a client is forgotten when it has neither.
	clients map[string]*clientSlots
}

type clientSlots struct {
	sem   chan struct{} // one token per running call
	users int           // running and waiting calls; guarded by callSlots.mu
}

func newCallSlots(per int) *callSlots {
	return &callSlots{per: per, clients: map[string]*clientSlots{}}
}

// acquire takes one of client's slots, waiting up to wait for one. It
// returns the function that gives it back, or a -32005 refusal.
func (s *callSlots) acquire(ctx context.Context, client string, wait time.Duration) (func(), error) {
	s.mu.Lock()
	c := s.clients[client]
	if c == nil {
		c = &clientSlots{sem: make(chan struct{}, s.per)}
		s.clients[client] = c
	}
	c.users++
	s.mu.Unlock()
	leave := func() {
		s.mu.Lock()
		if c.users--; c.users == 0 {
			delete(s.clients, client)
		}
		s.mu.Unlock()
	}
	select {
	case c.sem <- struct{}{}:
		return func() { <-c.sem; leave() }, nil
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case c.sem <- struct{}{}:
		return func() { <-c.sem; leave() }, nil
	case <-t.C:
	case <-ctx.Done():
	}
	leave()
	return nil, &limitError{"too many concurrent calls: at most " + strconv.Itoa(s.per) + " calls that run the EVM at a time per client on the dev chain"}
}
