package acp118

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/singleflight"

	"github.com/avaedge/avaedge/local/avax"
)

// Resolver returns the staking address (host:port) of a node.
type Resolver func(ctx context.Context, nodeID avax.NodeID) (string, error)

// Client asks validators for ACP-118 signatures over avalanchego's p2p
// protocol, as icm-services' signature-aggregator does: it keeps one
// handshaken connection per node, dialled on first use and again after it
// closes. It is safe for concurrent use.
//
// Kept connections matter beyond speed: a node upgrades at most one inbound
// connection per remote IP per cooldown (avalanchego's
// network-inbound-connection-throttling-cooldown, 10s by default; loopback
// is exempt), so a redial soon after a drop may be refused until it passes.
type Client struct {
	id      *Identity
	opts    func(ctx context.Context) (PeerOptions, error)
	resolve Resolver
	dials   singleflight.Group

	// mu guards peers.
	mu    sync.Mutex
	peers map[avax.NodeID]*Peer
}

// NewClient returns a Client with identity id that finds nodes with resolve
// and handshakes with the options opts returns (called per dial, so that the
// announced version can follow the network's).
func NewClient(id *Identity, opts func(ctx context.Context) (PeerOptions, error), resolve Resolver) *Client {
	return &Client{id: id, opts: opts, resolve: resolve, peers: map[avax.NodeID]*Peer{}}
}

// Sign asks nodeID for its signature of msg, an unsigned Warp message whose
// source chain is chainID, with justification (which the P-Chain needs for
// some L1 messages). The signature is not verified. A kept connection that
// turns out closed (the node restarted, or dropped an idle peer) is redialled
// once.
func (c *Client) Sign(ctx context.Context, nodeID avax.NodeID, chainID [32]byte, msg, justification []byte) ([]byte, error) {
	for attempt := 0; ; attempt++ {
		p, fresh, err := c.peer(ctx, nodeID)
		if err != nil {
			return nil, err
		}
		sig, err := p.Sign(ctx, chainID, msg, justification)
		if errors.Is(err, ErrClosed) {
			c.drop(nodeID, p)
			if !fresh && attempt == 0 && ctx.Err() == nil {
				continue
			}
		}
		return sig, err
	}
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
		addr, err := c.resolve(dctx, nodeID)
		if err != nil {
			return nil, fmt.Errorf("acp118: address of %s: %w", nodeID, err)
		}
		opts, err := c.opts(dctx)
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
		return nil, false, ctx.Err()
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
