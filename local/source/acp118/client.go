package acp118

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Resolver returns the staking address (host:port) of a node.
type Resolver func(ctx context.Context, nodeID avax.NodeID) (string, error)

// ClientOptions configures a Client. Zero values mean the documented
// defaults.
type ClientOptions struct {
	// Peer returns what a new connection announces and its timeouts; it is
	// called per dial, so that the announced version can follow the
	// network's.
	Peer func(ctx context.Context) (PeerOptions, error)
	// Resolve finds a node's staking address.
	Resolve Resolver
	// Backoff is how long a validator that timed out (left a request
	// unanswered, or did not complete a dial, by the caller's deadline) is
	// not asked: its connection is closed, Sign fails at once with
	// ErrBackoff until the period ends, then dials it again. Each further
	// timeout doubles the period, up to MaxBackoff; an answer resets it.
	// Zero means DefaultBackoff (30s).
	Backoff time.Duration
	// MaxBackoff caps the doubling of Backoff. Zero means
	// DefaultMaxBackoff (10 min).
	MaxBackoff time.Duration
	// Now is the clock of the backoff. Nil means time.Now.
	Now func() time.Time
}

// Client asks validators for ACP-118 signatures over avalanchego's p2p
// protocol, as icm-services' signature-aggregator does: it keeps one
// handshaken connection per node, dialled on first use and again after it
// closes. A validator that times out is dropped and backed off
// (ClientOptions.Backoff), so that a hung one costs its callers one timeout
// per backoff period, not one per call. It is safe for concurrent use.
//
// Kept connections matter beyond speed: a node upgrades at most one inbound
// connection per remote IP per cooldown (avalanchego's
// network-inbound-connection-throttling-cooldown, 10s by default; loopback
// is exempt), so a redial soon after a drop may be refused until it passes.
type Client struct {
	id    *Identity
	opts  ClientOptions
	now   func() time.Time
	dials singleflight.Group

	// mu guards peers and backoffs.
	mu       sync.Mutex
	peers    map[avax.NodeID]*Peer
	backoffs backoffs
}

// NewClient returns a Client with identity id.
func NewClient(id *Identity, opts ClientOptions) *Client {
	c := &Client{id: id, opts: opts, now: opts.Now, peers: map[avax.NodeID]*Peer{},
		backoffs: backoffs{first: cmp.Or(opts.Backoff, DefaultBackoff), max: cmp.Or(opts.MaxBackoff, DefaultMaxBackoff), byNode: map[avax.NodeID]backoff{}}}
	c.backoffs.max = max(c.backoffs.max, c.backoffs.first)
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Sign asks nodeID for its signature of msg, an unsigned Warp message whose
// source chain is chainID, with justification (which the P-Chain needs for
// some L1 messages). The signature is not verified. A kept connection that
// turns out closed (the node restarted, or dropped an idle peer) is redialled
// once. A node that times out is backed off: Sign fails with ErrBackoff,
// without a dial or a request, until its period ends.
func (c *Client) Sign(ctx context.Context, nodeID avax.NodeID, chainID [32]byte, msg, justification []byte) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		err := c.backoffs.wait(nodeID, c.now())
		c.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p, fresh, err := c.peer(ctx, nodeID)
		if err != nil {
			if errors.Is(err, ErrTimeout) {
				c.timedOut(nodeID)
			}
			return nil, err
		}
		sig, err := p.Sign(ctx, chainID, msg, justification)
		var appErr *AppError
		switch {
		case errors.Is(err, ErrTimeout):
			// Backed off before the drop, so that the requests the drop
			// fails do not redial.
			c.timedOut(nodeID)
			c.drop(nodeID, p)
		case errors.Is(err, ErrClosed):
			c.drop(nodeID, p)
			if !fresh && attempt == 0 && ctx.Err() == nil {
				continue
			}
		case err == nil, errors.As(err, &appErr), errors.Is(err, ErrMalformed):
			c.mu.Lock()
			c.backoffs.answered(nodeID)
			c.mu.Unlock()
		}
		return sig, err
	}
}

func (c *Client) timedOut(nodeID avax.NodeID) {
	c.mu.Lock()
	c.backoffs.timedOut(nodeID, c.now())
	c.mu.Unlock()
}

// peer returns the open connection to nodeID, dialling one if needed;
// fresh reports a connection dialled for this call.
func (c *Client) peer(ctx context.Context, nodeID avax.NodeID) (p *Peer, fresh bool, err error) {
	c.mu.Lock()
	p = c.peers[nodeID]
	c.mu.Unlock()
	if p != nil {
		select {
		case <-p.Done():
			c.drop(nodeID, p)
		default:
			return p, false, nil
		}
	}
	ch := c.dials.DoChan(nodeID.String(), func() (any, error) {
		c.mu.Lock()
		if p := c.peers[nodeID]; p != nil {
			c.mu.Unlock()
			return p, nil
		}
		c.mu.Unlock()
		// Detached from one caller's cancellation; bounded by the caller's
		// deadline when it has one.
		dctx := context.WithoutCancel(ctx)
		if dl, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			dctx, cancel = context.WithDeadline(dctx, dl)
			defer cancel()
		}
		addr, err := c.opts.Resolve(dctx, nodeID)
		if err != nil {
			return nil, fmt.Errorf("acp118: address of %s: %w", nodeID, err)
		}
		opts, err := c.opts.Peer(dctx)
		if err != nil {
			return nil, err
		}
		p, err := Dial(dctx, addr, nodeID, c.id, opts)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.peers[nodeID] = p
		c.mu.Unlock()
		return p, nil
	})
	select {
	case <-ctx.Done():
		// The dial (shared, maybe started for an earlier caller) did not
		// complete by this caller's deadline.
		return nil, false, timeout(fmt.Errorf("acp118: dialling %s: %w", nodeID, ctx.Err()))
	case r := <-ch:
		if r.Err != nil {
			return nil, false, r.Err
		}
		return r.Val.(*Peer), true, nil
	}
}

func (c *Client) drop(nodeID avax.NodeID, p *Peer) {
	c.mu.Lock()
	if c.peers[nodeID] == p {
		delete(c.peers, nodeID)
	}
	c.mu.Unlock()
	p.Close()
}

// Close closes every connection.
func (c *Client) Close() error {
	c.mu.Lock()
	peers := c.peers
	c.peers = map[avax.NodeID]*Peer{}
	c.mu.Unlock()
	for _, p := range peers {
		p.Close()
	}
	return nil
}
