package evmdata

import (
	"context"
	"sort"

	"github.com/avaedge/avaedge/local/source/evmindex"
)

// The lists across chains (/v1/blocks, /v1/transactions) merge the chains'
// newest items by block time. Their page token is a position in that
// order, (time, chain, skip): the items of chains before the chain at time
// and earlier, of the chain at time after the first skip items it has
// there, of the chains after it at time and earlier. Chains are numbered in
// networkChains' order.
type allCursor struct {
	time  uint64 // Unix seconds, < 2^34
	chain int    // < 2^6
	skip  int    // < 2^24
}

func (c allCursor) pack() uint64 {
	return c.time<<30 | uint64(c.chain&63)<<24 | uint64(min(c.skip, 1<<24-1))
}

func unpackAll(v uint64) allCursor {
	return allCursor{time: v >> 30, chain: int(v>>24) & 63, skip: int(v & (1<<24 - 1))}
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

// start returns where chain i's items begin for cursor c (an exclusive
// block bound for the chain's listing, 0 for none left) and how many of
// its first items to skip.
func (s *server) start(ctx context.Context, c *ChainInfo, i int, cur *allCursor) (before uint64, skip int, err error) {
	if cur == nil {
		head, ok := s.ix.Head(c.ChainID)
		if !ok {
			return 0, 0, nil
		}
		return head + 1, 0, nil
	}
	t := cur.time
	if i < cur.chain {
		if t == 0 {
			return 0, 0, nil
		}
		t--
	}
	n, ok, err := s.ix.BlockAt(ctx, c.ChainID, t)
	if err != nil || !ok {
		return 0, 0, err
	}
	if i == cur.chain {
		skip = cur.skip
	}
	return n + 1, skip, nil
}

// mergeAll orders every chain's items (each newest first) by time, then
// chain, then position, trims them to size and returns the next cursor
// (nil on the last page).
func mergeAll[T any](items []merged[T], size int, cur *allCursor) ([]merged[T], *allCursor) {
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
	next := &allCursor{time: last.time, chain: last.chain}
	for _, m := range items {
		if m.time == last.time && m.chain == last.chain {
			next.skip++
		}
	}
	if cur != nil && cur.time == last.time && cur.chain == last.chain {
		next.skip += cur.skip
	}
	return items, next
}

// allChains reads network, pageSize and pageToken of an all-chains list.
func (s *server) allChains(r *req, filters ...string) ([]*ChainInfo, int, string, *allCursor, error) {
	chains := s.networkChains(r.Get("network"))
	if len(chains) > maxAllChains {
		chains = chains[:maxAllChains]
	}
	size, _ := pageSize(r, 10)
	sc := scope(r, append([]string{"network=" + r.Get("network")}, filters...)...)
	v, err := s.cursor(r, sc)
	if err != nil {
		return nil, 0, "", nil, err
	}
	var cur *allCursor
	if v != 0 {
		c := unpackAll(v)
		cur = &c
	}
	return chains, size, sc, cur, nil
}

// listLatestBlocksAllChains answers GET /v1/blocks: the newest blocks of
// every chain (of network, when set), newest first.
func (s *server) listLatestBlocksAllChains(r *req) (any, error) {
	chains, size, sc, cur, err := s.allChains(r)
	if err != nil {
		return nil, err
	}
	var items []merged[evmBlock]
	for i, c := range chains {
		before, skip, err := s.start(r.Context(), c, i, cur)
		if err != nil {
			return nil, err
		}
		if before == 0 {
			continue
		}
		rows, err := s.ix.LatestBlocks(r.Context(), c.ChainID, before, size+1+skip)
		if err != nil {
			return nil, err
		}
		for _, b := range rows[min(skip, len(rows)):] {
			items = append(items, merged[evmBlock]{time: b.Timestamp, order: b.Number, chain: i, item: blockJSON(c, b)})
		}
	}
	page, next := mergeAll(items, size, cur)
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
	chains, size, sc, cur, err := s.allChains(r, "status="+r.Get("status"))
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	var items []merged[listedTransaction]
	for i, c := range chains {
		before, skip, err := s.start(ctx, c, i, cur)
		if err != nil {
			return nil, err
		}
		if before == 0 {
			continue
		}
		rows, err := s.ix.ChainTxs(ctx, c.ChainID, statusOf(r), evmindex.Blocks(0, before), size+1+skip)
		if err != nil {
			return nil, err
		}
		rows = rows[min(skip, len(rows)):]
		created, err := s.ix.Created(ctx, c.ChainID, rows)
		if err != nil {
			return nil, err
		}
		for j := range rows {
			t := &rows[j]
			items = append(items, merged[listedTransaction]{time: t.BlockTimestamp, order: uint64(t.Pos()), chain: i, item: listedJSON(c, t, created)})
		}
	}
	page, next := mergeAll(items, size, cur)
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
