package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// A feed is where the sockets of one EVM chain get their subscriptions:
// one JSON-RPC client of the chain that serves eth_subscribe (the dev
// chain's in-process client, or one WebSocket connection to the node
// upstream). Subscriptions are multiplexed: clients that subscribe with the
// same parameters (every newHeads subscriber of a chain, say) share one
// subscription of the feed, a topic, whose notifications are handed to each
// subscriber's connection without waiting (deliver). So a thousand
// subscribers cost the chain one subscription, the node upstream one
// connection, and a subscriber that does not read slows nobody: its own
// bounded queue fills and it is disconnected.
//
// A topic ends when its last subscriber leaves (eth_unsubscribe, or its
// connection closes), or when the feed ends it (the node's connection
// broke): its subscribers' connections are then closed with 1014, since the
// protocol has no way to tell a client that one subscription is gone, and
// a client that subscribes again gets a new connection to the node.
type feed struct {
	// source names where the notifications come from in usage records
	// ("upstream" or "local").
	source string
	// connect returns the feed's client: dials the node upstream, or
	// returns the dev chain's in-process client.
	connect func(ctx context.Context) (*rpc.Client, error)
	// owned says the feed closes its client when no topic is left (a
	// dialled connection); a shared in-process client is left open.
	owned bool
	log   *slog.Logger
	m     *socketMetrics

	mu sync.Mutex // guards client and topics
	// client is the connected client, nil until a topic needs one and
	// after it failed.
	client *rpc.Client
	// topics are the live subscriptions of the feed, by key (the
	// canonical eth_subscribe parameters).
	topics map[string]*topic
}

// subscribeTimeout bounds connecting to the node upstream and its answer
// to one eth_subscribe.
const subscribeTimeout = 10 * time.Second

// topic is one subscription of a feed, shared by its subscribers.
type topic struct {
	f    *feed
	key  string
	args []any
	// ready is closed once the feed's subscription is made (sub set) or
	// failed (err set).
	ready chan struct{}
	err   error
	sub   *rpc.ClientSubscription
	ch    chan json.RawMessage
	// stop is closed when the last subscriber left: run unsubscribes.
	stop chan struct{}

	mu sync.Mutex // guards subs and ended
	// subs receive every notification, in order.
	subs  []*socketSub
	ended bool
}

func newFeed(source string, owned bool, connect func(ctx context.Context) (*rpc.Client, error), m *socketMetrics, log *slog.Logger) *feed {
	return &feed{source: source, owned: owned, connect: connect, m: m, log: log, topics: map[string]*topic{}}
}

// join adds sub to the topic of key (eth_subscribe's canonical params,
// args the same as values), subscribing on the feed when no client has yet.
// It returns once the feed's subscription is made, or with the feed's
// error (as go-ethereum's rpc.Error when the chain refused it).
func (f *feed) join(ctx context.Context, key string, args []any, sub *socketSub) (*topic, error) {
	f.mu.Lock()
	t := f.topics[key]
	if t == nil {
		t = &topic{f: f, key: key, args: args, ready: make(chan struct{}), stop: make(chan struct{}),
			ch: make(chan json.RawMessage, 64)}
		f.topics[key] = t
		go t.run() // owned by the topic: returns when it ends
	}
	t.mu.Lock()
	t.subs = append(t.subs, sub)
	t.mu.Unlock()
	f.mu.Unlock()
	select {
	case <-t.ready:
	case <-ctx.Done():
		f.leave(t, sub)
		return nil, ctx.Err()
	}
	if t.err != nil {
		f.leave(t, sub)
		return nil, t.err
	}
	return t, nil
}

// leave removes sub from t; the last subscriber to leave ends the topic.
func (f *feed) leave(t *topic, sub *socketSub) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, s := range t.subs {
		if s == sub {
			t.subs = append(t.subs[:i], t.subs[i+1:]...)
			break
		}
	}
	if len(t.subs) > 0 || t.ended {
		return
	}
	t.ended = true
	if f.topics[t.key] == t {
		delete(f.topics, t.key)
	}
	close(t.stop)
}

// clientFor returns the feed's client, connecting it when there is none.
func (f *feed) clientFor(ctx context.Context) (*rpc.Client, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.client != nil {
		return f.client, nil
	}
	c, err := f.connect(ctx)
	if err != nil {
		return nil, err
	}
	f.client = c
	return c, nil
}

// gone is called by a topic that ended: an owned client is closed when it
// failed (broken) or no topic is left.
func (f *feed) gone(c *rpc.Client, broken bool) {
	f.mu.Lock()
	if c == nil || f.client != c || !broken && (len(f.topics) > 0 || !f.owned) {
		f.mu.Unlock()
		return
	}
	f.client = nil
	f.mu.Unlock()
	if f.owned || broken {
		// A broken in-process client is closed too: the next topic makes
		// another.
		c.Close()
	}
}

// run makes the feed's subscription, then hands each notification to the
// subscribers until the topic is stopped or the feed ends it.
func (t *topic) run() {
	f := t.f
	ctx, cancel := context.WithTimeout(context.Background(), subscribeTimeout)
	c, err := f.clientFor(ctx)
	if err == nil {
		t.sub, err = c.EthSubscribe(ctx, t.ch, t.args...)
	}
	cancel()
	if err != nil {
		t.err = err
		close(t.ready)
		f.gone(c, c != nil && !isRPCError(err))
		return
	}
	close(t.ready)
	f.m.feedSubs.WithLabelValues(f.source).Inc()
	defer f.m.feedSubs.WithLabelValues(f.source).Dec()
	for {
		select {
		case raw := <-t.ch:
			t.deliver(raw)
		case err := <-t.sub.Err():
			t.fail(err)
			f.gone(c, true)
			return
		case <-t.stop:
			t.sub.Unsubscribe() // waits for the chain's answer, here only
			f.gone(c, false)
			return
		}
	}
}

// deliver hands one notification to every subscriber, none waiting.
func (t *topic) deliver(raw json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.subs {
		s.deliver(raw)
	}
}

// fail ends the topic when the feed ended its subscription: its
// subscribers' connections are closed, saying why.
func (t *topic) fail(err error) {
	t.f.mu.Lock()
	t.mu.Lock()
	subs := t.subs
	t.subs, t.ended = nil, true
	if t.f.topics[t.key] == t {
		delete(t.f.topics, t.key)
	}
	t.mu.Unlock()
	t.f.mu.Unlock()
	msg := "the chain ended the subscription"
	if err != nil {
		msg += ": " + err.Error()
	}
	t.f.log.Warn("websocket: a subscription of the chain ended; closing its subscribers", "source", t.f.source, "subscribers", len(subs), "err", err)
	for _, s := range subs {
		s.sock.closeWith(closeBadGateway, msg)
	}
}

// isRPCError reports whether err is the chain's JSON-RPC answer (the
// connection works) rather than a failure to reach it.
func isRPCError(err error) bool {
	var re rpc.Error
	return errors.As(err, &re)
}
