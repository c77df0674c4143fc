package evmindex

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// partyKey is an address in one transaction of a block (address_txs).
type partyKey struct {
	addr  common.Address
	index uint // the transaction's index in the block
}

// party is how an address took part in a transaction: native when it sent
// or received the transaction itself, nonSpam when it has a part other than
// transfers of spam tokens.
type party struct{ native, nonSpam bool }

// addrInternal is an address_internals row.
type addrInternal struct {
	addr common.Address
	seq  int64
	tx   common.Hash
	idx  int
}

// parties returns every address's part in the transactions of d and the
// address rows of its listed internal transactions. spam holds the tokens
// first stored with d's batch; the others are known to the follower.
func (f *follower) parties(d *decoded, spam map[common.Address]bool) (map[partyKey]party, []addrInternal) {
	out := map[partyKey]party{}
	set := func(a common.Address, index uint, native, nonSpam bool) {
		if a == (common.Address{}) {
			return
		}
		k := partyKey{a, index}
		p := out[k]
		p.native = p.native || native
		p.nonSpam = p.nonSpam || nonSpam
		out[k] = p
	}
	index := make(map[common.Hash]uint, len(d.Txs))
	byHash := make(map[common.Hash]*Tx, len(d.Txs))
	for i := range d.Txs {
		t := &d.Txs[i]
		index[t.Hash], byHash[t.Hash] = t.Index, t
		set(t.From, t.Index, true, true)
		if t.To != nil {
			set(*t.To, t.Index, true, true)
		}
	}
	// A creation's recipient is the contract it created.
	for _, c := range d.Creations {
		if t := byHash[c.TxHash]; t != nil && t.To == nil && c.Deployer == t.From {
			set(c.Address, t.Index, true, true)
		}
	}
	isSpam := func(a common.Address) bool {
		if s, ok := spam[a]; ok {
			return s
		}
		return f.tokens[a].spam
	}
	for _, t := range d.Transfers {
		nonSpam := !(t.Kind == ERC20 && isSpam(t.Contract))
		set(t.From, index[t.TxHash], false, nonSpam)
		set(t.To, index[t.TxHash], false, nonSpam)
	}
	var ins []addrInternal
	for ord, it := range d.internals {
		if !listedFrame(it.Idx, it.Type, it.Value) {
			continue
		}
		seq := internalSeq(d.Number, ord)
		set(it.From, index[it.TxHash], false, true)
		set(it.To, index[it.TxHash], false, true)
		for _, a := range []common.Address{it.From, it.To} {
			if a != (common.Address{}) { // a call to itself gives one row (INSERT OR IGNORE)
				ins = append(ins, addrInternal{a, seq, it.TxHash, it.Idx})
			}
		}
	}
	return out, ins
}

// listedFrame reports whether frame idx of a transaction's trace is one of
// its internal transactions as the Data API lists them: a value-moving CALL
// or CALLCODE, or a contract creation, below the transaction's own frame
// (idx 0, which is the transaction itself).
func listedFrame(idx int, typ string, value *big.Int) bool {
	if idx == 0 {
		return false
	}
	switch typ {
	case "CREATE", "CREATE2", "CREATE3":
		return true
	case "CALL", "CALLCODE":
		return value != nil && value.Sign() > 0
	}
	return false
}

// noTracerReason is an untraced block's reason (untraced_blocks) when its
// chain is not traced: the node has no call tracer, or the chain's tracing
// is off (ChainOptions.NoTrace).
const noTracerReason = "indexed without call traces: the node offers no debug_traceBlockByNumber"

// internalSeq positions internal transaction ord (its frame's position
// among all frames of the block) of block.
func internalSeq(block uint64, ord int) int64 { return int64(block<<28 | uint64(ord&(1<<28-1))) }

// creationSeq positions creation ord of block.
func creationSeq(block uint64, ord int) int64 { return int64(block<<28 | uint64(ord&(1<<28-1))) }
