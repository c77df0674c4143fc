package warp

import (
	"container/list"
	"sync"

	blst "github.com/supranational/blst/bindings/go"

	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// sigKey names one validator's signature of one message: the message id
// followed by the 48-byte compressed public key.
type sigKey [32 + warpmsg.PublicKeyLen]byte

func newSigKey(msgID [32]byte, pk []byte) sigKey {
	var k sigKey
	copy(k[:32], msgID[:])
	copy(k[32:], pk)
	return k
}

// sigCache is a fixed-size LRU of verified signatures. It is safe for
// concurrent use.
type sigCache struct {
	size int

	mu    sync.Mutex // guards order and items
	order *list.List // of *sigEntry, most recent first
	items map[sigKey]*list.Element
}

type sigEntry struct {
	key sigKey
	sig *blst.P2Affine
}

func newSigCache(size int) *sigCache {
	return &sigCache{size: size, order: list.New(), items: make(map[sigKey]*list.Element)}
}

func (c *sigCache) get(k sigKey) (*blst.P2Affine, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*sigEntry).sig, true
}

func (c *sigCache) add(k sigKey, sig *blst.P2Affine) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		e.Value.(*sigEntry).sig = sig
		return
	}
	c.items[k] = c.order.PushFront(&sigEntry{key: k, sig: sig})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*sigEntry).key)
	}
}
