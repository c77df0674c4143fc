package evmdata

import (
	"context"
	"errors"
	"sort"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
)

// The lists across chains (/v1/blocks, /v1/transactions) merge the chains'
// newest items by block time, then chain (numbered in networkChains'
// order), then position in the chain, newest first. Their page token is the
// last item's chain and position, from which the next page starts by key:
// the items of chains before it older than its time, of its chain below its
// position, of the chains after it at its time and older. Its time is its
// block's, read again, not carried.
type allCursor struct {
	chain int    // < 2^6
	order uint64 // the item's position: a block number, or a TxPos (of a block below 2^34)
	time  uint64 // the item's block's time
}

// pack stores the cursor in a token's 64 bits (order+1, so that no
// cursor is zero, which s.cursor refuses).
func (c allCursor) pack() uint64 { return uint64(c.chain&63)<<58 | (c.order+1)&(1<<58-1) }

func unpackAll(v uint64) allCursor {
	return allCursor{chain: int(v >> 58), order: v&(1<<58-1) - 1}
}

// maxAllChains bounds the chains an all-chains list merges (the cursor has
// six bits for them).
const maxAllChains = 64

// merged is one item of an all-chains list.
type merged[T any] struct {
	time, order uint64 // order: the item's position in its chain, newest highest
	chain       int
	item        T
}

// allKind says how an all-chains list's positions relate to blocks.
type allKind struct {
	// bound is the exclusive position bound of the items below block n.
	bound func(n uint64) uint64
	// block is the block of the item at position p.
	block func(p uint64) uint64
}

var (
	blockItems = allKind{bound: func(n uint64) uint64 { return n }, block: func(p uint64) uint64 { return p }}
	txItems    = allKind{bound: func(n uint64) uint64 { return uint64(evmindex.PosOf(n, 0)) },
		block: func(p uint64) uint64 { return evmindex.TxPos(p).Block() }}
)

// start returns where chain i's items begin for cursor c: an exclusive
// bound of their positions, 0 for none left.
func (s *server) start(ctx context.Context, c *ChainInfo, i int, cur *allCursor, k allKind) (before uint64, err error) {
	if cur == nil {
		head, ok := s.ix.Head(c.ChainID)
		if !ok {
			return 0, nil
		}
		return k.bound(head + 1), nil
	}
	if i == cur.chain {
		return cur.order, nil
	}
	t := cur.time
	if i < cur.chain {
		if t == 0 {
			return 0, nil
		}
		t--
	}
	n, ok, err := s.ix.BlockAt(ctx, c.ChainID, t)
	if err != nil || !ok {
		return 0, err
	}
	return k.bound(n + 1), nil
}

// mergeAll orders every chain's items (each newest first) by time, then
// chain, then position, trims them to size and returns the next cursor
// (nil on the last page).
func mergeAll[T any](items []merged[T], size int) ([]merged[T], *allCursor) {
	sort.SliceStable(items, func(a, b int) bool {
		x, y := items[a], items[b]
		if x.time != y.time {
			return x.time > y.time
		}
		if x.chain != y.chain {
			return x.chain < y.chain
		}
		return x.order > y.order
	})
	if len(items) <= size {
		return items, nil
	}
	items = items[:size]
	last := items[size-1]
	return items, &allCursor{chain: last.chain, order: last.order}
}

// allChains reads network, pageSize and pageToken of an all-chains list of
// items of kind k.
func (s *server) allChains(r *req, k allKind, filters ...string) ([]*ChainInfo, int, string, *allCursor, error) {
	chains := s.networkChains(r.Get("network"))
	if len(chains) > maxAllChains {
		chains = chains[:maxAllChains]
	}
	size, _ := pageSize(r, 10)
	sc := scope(r, append([]string{"network=" + r.Get("network")}, filters...)...)
	v, err := s.cursor(r, sc)
	if err != nil || v == 0 {
		return chains, size, sc, nil, err
	}
	cur := unpackAll(v)
	if cur.chain >= len(chains) {
		return nil, 0, "", nil, apireq.BadRequest("Invalid page token")
	}
	b, err := s.ix.Block(r.Context(), chains[cur.chain].ChainID, k.block(cur.order))
	if errors.Is(err, evmindex.ErrNotFound) {
		return nil, 0, "", nil, apireq.BadRequest("Invalid page token")
	}
	if err != nil {
		return nil, 0, "", nil, err
	}
	cur.time = b.Timestamp
	return chains, size, sc, &cur, nil
}

// listLatestBlocksAllChains answers GET /v1/blocks: the newest blocks of
// every chain (of network, when set), newest first.
func (s *server) listLatestBlocksAllChains(r *req) (any, error) {
	chains, size, sc, cur, err := s.allChains(r, blockItems)
	if err != nil {
		return nil, err
	}
	var items []merged[evmBlock]
	for i, c := range chains {
		before, err := s.start(r.Context(), c, i, cur, blockItems)
		if err != nil {
			return nil, err
		}
		if before == 0 {
			continue
		}
		rows, err := s.ix.LatestBlocks(r.Context(), c.ChainID, before, size+1)
		if err != nil {
			return nil, err
		}
		for _, b := range rows {
			items = append(items, merged[evmBlock]{time: b.Timestamp, order: b.Number, chain: i, item: blockJSON(c, b)})
		}
	}
	page, next := mergeAll(items, size)
	out := struct {
		NextPageToken string     `json:"nextPageToken,omitempty"`
		Blocks        []evmBlock `json:"blocks"`
	}{Blocks: make([]evmBlock, 0, len(page))}
	for _, m := range page {
		out.Blocks = append(out.Blocks, m.item)
	}
	if next != nil {
		out.NextPageToken = s.token(sc, next.pack())
	}
	return out, nil
}

// listLatestTransactionsAllChains answers GET /v1/transactions: the newest
// transactions of every chain (of network, when set), newest first, with
// the status filter.
func (s *server) listLatestTransactionsAllChains(r *req) (any, error) {
	chains, size, sc, cur, err := s.allChains(r, txItems, "status="+r.Get("status"))
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	var items []merged[listedTransaction]
	for i, c := range chains {
		before, err := s.start(ctx, c, i, cur, txItems)
		if err != nil {
			return nil, err
		}
		if before == 0 {
			continue
		}
		rows, err := s.ix.ChainTxs(ctx, c.ChainID, statusOf(r), evmindex.Range{To: evmindex.TxPos(before)}, size+1)
		if err != nil {
			return nil, err
		}
		created, err := s.ix.Created(ctx, c.ChainID, rows)
		if err != nil {
			return nil, err
		}
		for j := range rows {
			t := &rows[j]
			items = append(items, merged[listedTransaction]{time: t.BlockTimestamp, order: uint64(t.Pos()), chain: i, item: listedJSON(c, t, created)})
		}
	}
	page, next := mergeAll(items, size)
	out := struct {
		NextPageToken string              `json:"nextPageToken,omitempty"`
		Transactions  []listedTransaction `json:"transactions"`
	}{Transactions: make([]listedTransaction, 0, len(page))}
	for _, m := range page {
		out.Transactions = append(out.Transactions, m.item)
	}
	if next != nil {
		out.NextPageToken = s.token(sc, next.pack())
	}
	return out, nil
}
