package cache

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
)

// Do answers key:
//
//   - fresh in the cache: the entry, HIT, without calling fetch;
//   - stale within its stale-while-revalidate window: the entry, STALE, and
//     one background refresh of key at a time (owned by the Cache, bounded
//     by FetchTimeout, stopped by Close);
//   - otherwise fetch is called once for all concurrent callers of key (the
//     cache is looked at again inside the flight, so callers that queued
//     behind a fetch get its answer), and its answer is stored when its
//     FreshFor is positive (a 404 negative entry is one with a short
//     FreshFor): the entry, MISS. A fresh entry found inside the flight
//     (stored meanwhile by another instance) is a HIT.
//   - when fetch fails, a stale copy within its stale-if-error window:
//     the entry, STALE; else nil, MISS and fetch's error.
//
// bypass (Cache-Control: no-cache) skips the read but still stores the
// answer: BYPASS; bypassing callers share a flight only with each other.
//
// fetch runs with a context that keeps ctx's values but not its
// cancellation (other callers may be waiting for it), bounded by
// FetchTimeout (a background refresh's is also cancelled by Close); a
// caller whose ctx ends stops waiting and gets ctx's error, while the
// fetch goes on and stores its answer for the others. A panic in fetch is
// returned as an error. Returned entries are shared and must not be
// changed. It is safe for concurrent use.
func (c *Cache) Do(ctx context.Context, key string, bypass bool, fetch func(ctx context.Context) (*Entry, error)) (*Entry, Status, error) {
	var old *Entry
	if !bypass {
		now := c.now()
		e, t := c.lookup(ctx, key, now)
		if e != nil {
			if e.fresh(now) {
				c.countHit(t)
				return e, Hit, nil
			}
			if e.revalidatable(now) {
				c.m.staleRevalidate.Inc()
				c.refresh(ctx, key, fetch)
				return e, Stale, nil
			}
			old = e // perhaps within its stale-if-error window
		}
	}
	e, hit, err := c.load(ctx, key, bypass, false, fetch)
	if !hit {
		c.m.misses.Inc()
	}
	switch {
	case err == nil && hit:
		return e, Hit, nil
	case err == nil && bypass:
		return e, Bypass, nil
	case err == nil:
		return e, Miss, nil
	}
	if old == nil && bypass && ctx.Err() == nil {
		old, _ = c.lookup(ctx, key, c.now())
	}
	if old != nil && old.usableOnError(c.now()) {
		c.m.staleErr.Inc()
		return old, Stale, nil
	}
	return nil, Miss, err
}

// Fresh returns key's entry when the in-process tier holds it fresh at now
// (the caller's reading of the Cache's clock, so that one request reads the
// clock once), and nil otherwise, counting a hit. It never calls Redis and
// does not allocate: the hit path's fast lane, which spares the caller
// building a fetch for Do. A nil answer says nothing about Redis or stale
// copies; Do is the whole path.
func (c *Cache) Fresh(key string, now time.Time) *Entry {
	if c.mem == nil {
		return nil
	}
	e := c.mem.get(key)
	if e == nil || !e.fresh(now) {
		return nil
	}
	c.countHit(tierMemory)
	return e
}

func (c *Cache) countHit(t tier) {
	if t == tierRedis {
		c.m.hitRedis.Inc()
	} else {
		c.m.hitMemory.Inc()
	}
}

// flightResult is what a flight hands its callers.
type flightResult struct {
	e   *Entry
	hit bool // found fresh in the cache inside the flight
}

var errNilEntry = errors.New("cache: fetch returned no entry and no error")

// load runs (or joins) the flight of key: look again, else fetch and store.
// hit reports that the answer was found fresh in the cache. A background
// flight's fetch is cancelled by Close.
func (c *Cache) load(ctx context.Context, key string, bypass, background bool, fetch func(ctx context.Context) (*Entry, error)) (e *Entry, hit bool, err error) {
	fk := key
	if bypass {
		fk = "\x00bypass\x00" + key // no '\x00' in a proxy key: a flight of its own
	}
	ch := c.flight.DoChan(fk, func() (any, error) {
		if !bypass {
			now := c.now()
			if e, t := c.lookup(ctx, key, now); e != nil && e.fresh(now) {
				c.countHit(t)
				return flightResult{e: e, hit: true}, nil
			}
		}
		fctx, cancel := c.fetchContext(ctx, background)
		defer cancel()
		e, err := c.safeFetch(fctx, key, fetch)
		if err != nil {
			return nil, err
		}
		return flightResult{e: c.store(fctx, key, e)}, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, false, r.Err
		}
		fr := r.Val.(flightResult)
		return fr.e, fr.hit, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// fetchContext returns the context a shared fetch runs with: ctx's values
// (not its cancellation: other callers may be waiting), FetchTimeout, and
// for a background fetch cancellation by Close.
func (c *Cache) fetchContext(ctx context.Context, background bool) (context.Context, context.CancelFunc) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.FetchTimeout)
	if !background {
		return fctx, cancel
	}
	stop := context.AfterFunc(c.ctx, cancel)
	return fctx, func() { stop(); cancel() }
}

// safeFetch calls fetch, turning a panic (which singleflight would re-raise
// on a goroutine of its own, killing the process) into a logged error.
func (c *Cache) safeFetch(ctx context.Context, key string, fetch func(ctx context.Context) (*Entry, error)) (e *Entry, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("cache: fetch panicked", "key", key, "panic", p, "stack", string(debug.Stack()))
			e, err = nil, fmt.Errorf("cache: fetch panicked: %v", p)
		}
	}()
	e, err = fetch(ctx)
	if err == nil && e == nil {
		err = errNilEntry
	}
	return e, err
}

// refresh starts a background refresh of key unless one is running or the
// cache is closed. The refresh joins the key's flight, so it also collapses
// with concurrent misses, and looks at Redis before fetching: another
// instance may have refreshed the entry already.
func (c *Cache) refresh(ctx context.Context, key string, fetch func(ctx context.Context) (*Entry, error)) {
	c.mu.Lock()
	if _, running := c.refreshing[key]; running || c.closed {
		c.mu.Unlock()
		return
	}
	c.refreshing[key] = struct{}{}
	c.wg.Add(1)
	c.mu.Unlock()
	// Keep the caller's values (request ids for logs), not its cancellation;
	// stop waiting at Close.
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(c.ctx, cancel)
	go func() {
		defer c.wg.Done()
		defer cancel()
		defer stop()
		_, _, err := c.load(rctx, key, false, true, fetch)
		c.mu.Lock()
		delete(c.refreshing, key)
		c.mu.Unlock()
		if err != nil {
			c.m.refreshFailed.Inc()
			c.log.Debug("cache: background refresh failed", "key", key, "err", err)
			return
		}
		c.m.refreshOK.Inc()
	}()
}
