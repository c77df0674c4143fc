// Package metricsapi answers the Metrics API locally (popsicle.json; the
// metric definitions are in docs/facts.md, section 3) from indexed EVM
// blocks: the 17 chain metrics at hour, day, week and month intervals,
// /v2/chains, /v2/chains/{chainId} and the legacy /v1/avg_tps/{chainId}.
//
// The Engine keeps per-bucket aggregates for every interval, updated as
// each block arrives, so a request reads only the buckets of the page it
// answers. Distinct counts are exact: every bucket holds its set of address
// ids (a map while the bucket is the newest, then a sorted []uint32), and
// cumulative distinct counts come from first-seen records. Every block is
// also kept as a compact record (sums and address ids) so that Rollback can
// rebuild the buckets a re-org touched and undo the first-seen records the
// removed blocks made.
//
// Costs: Apply is O(addresses in the block) per interval. A page of n
// points costs O(n log buckets) per selected chain, plus, for distinct
// counts over several chains, the size of the sets it unites, plus, for
// cumulativeAddresses/Deployers over an aggregate, O(d log d) for the d
// days with a new address. Rollback re-adds the remaining blocks from the
// start of the month that holds the first removed block, and undoes the
// removed blocks' first-seen records. Memory holds every block's record
// (about 150 bytes plus 4 bytes an address) and every bucket's sets.
//
// Choices the published definitions leave open, made here:
//
//   - A series spans the buckets from the selected chains' first indexed
//     block to their last. Buckets inside that span without blocks are
//     answered, with 0 (counts, sums, rates, maxima) or the value carried
//     from the day before (cumulative metrics), so series are dense and
//     cumulative ones monotone. Buckets outside the span are left out.
//   - Cumulative metrics count through the end of the day of the
//     timestamp. popsicle.json's line for cumulativeContracts says "up until
//     the timestamp", but its general rule (a point holds the data of its
//     timestamp plus the interval) and the other cumulative lines say
//     through the end of the day; cumulativeContracts is therefore the
//     running sum of contracts, as cumulativeTxCount is of txCount.
//   - avgGps/avgTps divide the day's gas (transactions) by the time from the
//     chain's last block before the day (the last block of the previous day,
//     or of an earlier day when the previous one has none) to the day's last
//     block. On the chain's first indexed day there is no earlier block: the
//     day's first block stands in. A span shorter than 1 s counts as 1 s.
//   - maxGps/maxTps take, over the day's blocks, gas (transactions) divided
//     by the seconds since the chain's previous block, at least 1 s (blocks
//     may share a timestamp). The chain's first indexed block has no
//     previous block and is skipped.
//   - avgGasPrice is the mean of the receipts' effective gas prices over the
//     transactions that have one (not weighted by gas).
//   - The metrics of catalog.DayOnlyMetrics (those whose names start with
//     cumulative, avg or max, and contracts, deployers and feesPaid, as the
//     published spec's table of metrics marks them) accept only
//     timeInterval=day; the catalogue refuses other intervals with a 400
//     before a handler runs, at the edge and here alike.
//   - Values are JSON numbers. Counts and sums of integers (feesPaid and
//     maxGasPrice in wei included) are written as exact integers of any
//     size; the ratios avgGps, avgTps, maxGps, maxTps and avgGasPrice as the
//     nearest float64 (avgGasPrice from the exact rational sum/count).
//     JavaScript clients read every number as a float64, so wei values above
//     2^53 lose precision there, not on the wire.
//   - Aggregates (total, mainnet, testnet) add counts and sums, take the
//     union for distinct counts (an address is the same account on every
//     chain) and the maximum for maxima; avgGps/avgTps add the chains'
//     rates (the network's throughput); avgGasPrice is the mean over all
//     their transactions.
//   - startTimestamp and endTimestamp bound the points' timestamps
//     inclusively. startTimestamp > endTimestamp is a 400.
package metricsapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/cchain"
)

// Block is one indexed block, delivered to Apply in chain order.
type Block struct {
	ChainID   uint64
	Number    uint64
	Timestamp uint64 // unix seconds
	// GasUsed is the block's gas used. Zero means the sum of its Txs'.
	GasUsed   uint64
	Txs       []Tx
	Transfers []Transfer // ERC-20/721/1155 transfer log parties
	Creations []Creation // contract creations from traces
}

// Tx is a transaction with its receipt's figures. Addresses are hex; case
// does not matter. An empty address is nobody (To of a contract creation).
type Tx struct {
	From, To string
	GasUsed  uint64
	// GasPrice is the effective gas price from the receipt. Nil means
	// unknown: the transaction is left out of avgGasPrice and maxGasPrice.
	GasPrice *big.Int
	// Fee is what the transaction paid. Nil means GasUsed times GasPrice.
	Fee *big.Int
}

// Transfer names the parties of an ERC-20/721/1155 transfer log. Mints and
// burns should pass "" for the zero address, which is nobody's activity.
type Transfer struct{ From, To string }

// Creation is a contract creation found in a transaction's trace. Kind is
// "CREATE", "CREATE2" or "CREATE3"; other kinds are ignored.
type Creation struct{ Deployer, Address, Kind string }

// Chain describes a chain the engine answers for.
type Chain struct {
	EVMChainID   uint64
	ChainName    string
	BlockchainID string
	SubnetID     string
	Network      string // "mainnet" or "testnet" ("fuji" is read as testnet)
}

// Options configures an Engine.
type Options struct {
	// Chains are the chains the engine indexes and lists. Apply rejects
	// blocks of any other chain.
	Chains []Chain
	// Now is the clock of page tokens. Nil means time.Now.
	Now func() time.Time
	// Registerer receives the engine's Prometheus metrics. Nil means none.
	Registerer prometheus.Registerer
	// Logger logs rejected blocks and rollbacks. Nil means slog.Default().
	Logger *slog.Logger
	// Path is a SQLite file that keeps every applied block's compact
	// record (sums and addresses, about 50 bytes an address), so that New
	// replays the history after a restart and Close must be called. Empty
	// means memory only: a restarted engine starts empty.
	Path string
	// URL is a postgres:// URL keeping the records in place of Path's
	// file (the followed network's shared index, local.index_url): every
	// replica of a fleet replays them, the writer's engine (fed by the EVM
	// index's writer) stores them, and the others read what it stored
	// (Refresh). Close must be called.
	URL string
	// ReadURL is a read replica of URL's database (local.index_read_url):
	// a standby's Refresh reads the records there, so that its answers
	// lag with the replica; New's replay, the writer's writes and the
	// refresh before leading (RefreshPrimary) stay on URL. Empty means
	// URL.
	ReadURL string
	// CChain, when set, lets every id a client of the real services uses
	// for the C-Chain (43114, 43113, 43112 and their blockchain ids) answer
	// from the chain it targets; getChain names the id the client asked
	// for. For local mode only: in proxy mode devnet data must never pass
	// for a real network's. Nil means each chain answers only for its own
	// ids.
	CChain *cchain.Aliases
	// ICM counts the ICM messages, for getICMSummary, getICMTimeseries and
	// the legacy getTeleporterMetricsByChain. Nil means those routes are
	// not served.
	ICM ICMSource
	// Stakes reads the P-Chain's stakes, for getStakingMetrics, the L1
	// validator fee series and getValidatorsByDateRange. Nil means those
	// routes are not served.
	Stakes StakeSource
	// HRP returns the HRP of the P-Chain addresses answered for a network
	// name ("" when the request names none). Nil means "local".
	HRP func(network string) string
	// Holders reads token holders, for the legacy
	// getNftHoldersByContractAddress and getAddressesByBalanceOverTime.
	// Nil means those routes are not served.
	Holders HolderSource
}

// Errors of Apply.
var (
	// ErrUnknownChain is returned for a block of a chain not in
	// Options.Chains.
	ErrUnknownChain = errors.New("metricsapi: unknown chain")
	// ErrOutOfOrder is returned for a block whose number does not exceed
	// the chain's last block's, or whose timestamp is earlier.
	ErrOutOfOrder = errors.New("metricsapi: block out of order")
)

// Engine keeps the per-bucket aggregates of every chain and answers the
// Metrics API routes from them. It is safe for concurrent use: Apply and
// Rollback take the write lock, requests the read lock.
type Engine struct {
	now   func() time.Time
	log   *slog.Logger
	tel   *telemetry
	list  []Chain  // Options.Chains, in order, for /v2/chains
	store recStore // nil without Options.Path or URL
	// standby is what Refresh has read of the shared store (Options.URL);
	// it is guarded by mu.
	standby standbyState
	cchain  *cchain.Aliases
	// The sources of the routes beyond the EVM chain metrics (Options).
	icm      ICMSource
	stakeSrc StakeSource
	hrp      func(string) string
	holders  HolderSource

	mu sync.RWMutex // guards ids, chains' and groups' contents, scratch
	// ids numbers addresses for every chain.
	ids interner
	// chains holds each chain's state by EVM chain id; the map itself is
	// fixed by New.
	chains map[uint64]*chainState
	// groups holds the aggregates "total", "mainnet" and "testnet".
	groups map[string]*group
	// scratch is Apply's per-block de-duplication map, reused.
	scratch map[uint32]uint8
}

// New returns an Engine for opts.Chains.
func New(opts Options) (*Engine, error) {
	e := &Engine{now: opts.Now, log: opts.Logger, cchain: opts.CChain, icm: opts.ICM, stakeSrc: opts.Stakes, hrp: opts.HRP, holders: opts.Holders, ids: interner{ids: map[string]uint32{}},
		chains: map[uint64]*chainState{}, scratch: map[uint32]uint8{}, groups: map[string]*group{}}
	if e.now == nil {
		e.now = time.Now
	}
	if e.hrp == nil {
		e.hrp = func(string) string { return "local" }
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	for _, name := range []string{"total", avanet.Mainnet.Name, avanet.TestnetName} {
		e.groups[name] = newGroup()
	}
	for _, c := range opts.Chains {
		switch c.Network {
		case avanet.Mainnet.Name, avanet.TestnetName:
		case avanet.Fuji.Name:
			c.Network = avanet.TestnetName
		default:
			return nil, fmt.Errorf("metricsapi: chain %d: network %q is not mainnet or testnet", c.EVMChainID, c.Network)
		}
		if e.chains[c.EVMChainID] != nil {
			return nil, fmt.Errorf("metricsapi: chain %d listed twice", c.EVMChainID)
		}
		cs := newChainState(c)
		cs.groups = []*group{e.groups["total"], e.groups[c.Network]}
		for _, g := range cs.groups {
			g.members = append(g.members, cs)
		}
		e.chains[c.EVMChainID] = cs
		e.list = append(e.list, c)
	}
	tel, err := newTelemetry(opts.Registerer)
	if err != nil {
		return nil, err
	}
	e.tel = tel
	switch {
	case opts.URL != "":
		pg, err := openPGStore(context.Background(), opts.URL, opts.ReadURL, e.log)
		if err != nil {
			return nil, err
		}
		e.store = pg
		if err := e.initStandby(context.Background(), pg); err != nil {
			pg.close()
			return nil, fmt.Errorf("metricsapi: %w", err)
		}
	case opts.Path != "":
		if e.store, err = openStore(opts.Path); err != nil {
			return nil, err
		}
	}
	if e.store != nil {
		if err := e.replay(); err != nil {
			e.store.close()
			return nil, err
		}
	}
	return e, nil
}

// replay applies the stored blocks. Blocks of chains no longer in
// Options.Chains stay stored but are not loaded.
func (e *Engine) replay() error {
	skipped := map[uint64]int{}
	err := e.store.load(func(chainID, number uint64, raw []byte) error {
		cs := e.chains[chainID]
		if cs == nil {
			skipped[chainID]++
			return nil
		}
		rec, err := decodeRec(number, raw, &e.ids)
		if err != nil {
			return fmt.Errorf("%w: chain %d block %d", err, chainID, number)
		}
		e.applyRec(cs, rec)
		return nil
	})
	for id, n := range skipped {
		e.log.Info("metricsapi: stored blocks of an unlisted chain not loaded", "chain", id, "blocks", n)
	}
	return err
}

// Head returns the number of the last block applied to chainID, and false
// when it has none. After a restart with Options.Path, the feeder resumes
// after it.
func (e *Engine) Head(chainID uint64) (uint64, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	cs := e.chains[chainID]
	if cs == nil || len(cs.blocks) == 0 {
		return 0, false
	}
	return cs.blocks[len(cs.blocks)-1].number, true
}

// Close closes the store of Options.Path. Without one it does nothing.
func (e *Engine) Close() error {
	if e.store == nil {
		return nil
	}
	return e.store.close()
}

// Apply adds block b to its chain's aggregates. b must follow the chain's
// previous block: a higher number and a timestamp no earlier. Apply does not
// keep b or anything it points to.
func (e *Engine) Apply(ctx context.Context, b *Block) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cs := e.chains[b.ChainID]
	if cs == nil {
		e.log.Warn("metricsapi: block of an unknown chain dropped", "chain", b.ChainID, "block", b.Number)
		return fmt.Errorf("%w: %d", ErrUnknownChain, b.ChainID)
	}
	if n := len(cs.blocks); n > 0 {
		if last := &cs.blocks[n-1]; b.Number <= last.number || b.Timestamp < last.ts {
			e.log.Warn("metricsapi: out-of-order block dropped", "chain", b.ChainID, "block", b.Number, "last", last.number)
			return fmt.Errorf("%w: chain %d block %d (time %d) after block %d (time %d)",
				ErrOutOfOrder, b.ChainID, b.Number, b.Timestamp, last.number, last.ts)
		}
	}
	rec := e.record(b)
	if e.store != nil {
		if err := e.store.put(b.ChainID, &rec, e.ids.names); err != nil {
			return err
		}
	}
	e.applyRec(cs, rec)
	e.tel.applied(cs.label, len(e.ids.names))
	return nil
}

// applyRec records which of rec's addresses and deployers the chain sees
// for the first time and adds rec to the chain. The caller holds e.mu.
func (e *Engine) applyRec(cs *chainState, rec blockRec) {
	dayStart := day.floor(int64(rec.ts))
	for _, id := range rec.addrs {
		if _, ok := cs.firstSeen[id]; !ok {
			cs.firstSeen[id] = dayStart
			rec.newAddrs = append(rec.newAddrs, id)
			for _, g := range cs.groups {
				g.addrs.seen(id, dayStart)
			}
		}
	}
	for _, id := range rec.deployers {
		if _, ok := cs.firstDep[id]; !ok {
			cs.firstDep[id] = dayStart
			rec.newDeps = append(rec.newDeps, id)
			for _, g := range cs.groups {
				g.deps.seen(id, dayStart)
			}
		}
	}
	cs.apply(rec)
}

// Rollback undoes the blocks numbered fromBlock and above of chainID (a
// re-org): the buckets they touched are rebuilt from the blocks that remain
// and their first-seen records are removed. Blocks delivered after it must
// follow the last remaining block.
func (e *Engine) Rollback(ctx context.Context, chainID, fromBlock uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	cs := e.chains[chainID]
	if cs == nil {
		return fmt.Errorf("%w: %d", ErrUnknownChain, chainID)
	}
	if e.store != nil {
		if err := e.store.dropFrom(chainID, fromBlock); err != nil {
			return err
		}
	}
	e.rollbackRecs(cs, chainID, fromBlock)
	return nil
}

// rollbackRecs undoes cs's blocks numbered fromBlock and above. The caller
// holds e.mu.
func (e *Engine) rollbackRecs(cs *chainState, chainID, fromBlock uint64) {
	n := cs.rollback(fromBlock)
	if n == 0 {
		return
	}
	e.tel.rolledBack(cs.label, n)
	e.log.Info("metricsapi: rolled back", "chain", chainID, "from", fromBlock, "blocks", n)
}

// record turns b into the compact record a chain keeps. It uses e.scratch:
// the caller holds e.mu.
func (e *Engine) record(b *Block) blockRec {
	r := blockRec{number: b.Number, ts: b.Timestamp, gas: b.GasUsed, txs: uint32(len(b.Txs))}
	const sender, active = 1, 2
	seen := e.scratch
	clear(seen)
	note := func(a string, isSender bool) {
		if a == "" {
			return
		}
		id := e.ids.id(a)
		f := seen[id]
		if isSender && f&sender == 0 {
			r.addrs = append(r.addrs, id)
			seen[id] = f | sender | active
		} else if !isSender && f == 0 {
			r.addrs = append(r.addrs, id)
			seen[id] = active
		}
	}
	var gasSum uint64
	for i := range b.Txs {
		tx := &b.Txs[i]
		note(tx.From, true)
		gasSum += tx.GasUsed
		if tx.GasPrice != nil {
			r.gpN++
			r.gpSum = addBig(r.gpSum, tx.GasPrice)
			if r.gpMax == nil || tx.GasPrice.Cmp(r.gpMax) > 0 {
				r.gpMax = new(big.Int).Set(tx.GasPrice)
			}
		}
		switch {
		case tx.Fee != nil:
			r.fees = addBig(r.fees, tx.Fee)
		case tx.GasPrice != nil:
			r.fees = addBig(r.fees, new(big.Int).Mul(tx.GasPrice, new(big.Int).SetUint64(tx.GasUsed)))
		}
	}
	for _, t := range b.Transfers {
		note(t.From, true)
	}
	// Senders are all noted first, so they lead r.addrs.
	r.nSenders = uint32(len(r.addrs))
	for i := range b.Txs {
		note(b.Txs[i].To, false)
	}
	for _, t := range b.Transfers {
		note(t.To, false)
	}
	if r.gas == 0 {
		r.gas = gasSum
	}
	clear(seen)
	for _, c := range b.Creations {
		switch c.Kind {
		case "CREATE", "CREATE2", "CREATE3":
		default:
			continue
		}
		r.contracts++
		if c.Deployer == "" {
			continue
		}
		if id := e.ids.id(c.Deployer); seen[id] == 0 {
			seen[id] = 1
			r.deployers = append(r.deployers, id)
		}
	}
	return r
}

// addBig returns sum + x, allocating sum when it is nil.
func addBig(sum, x *big.Int) *big.Int {
	if sum == nil {
		return new(big.Int).Set(x)
	}
	return sum.Add(sum, x)
}
