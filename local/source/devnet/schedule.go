package devnet

import (
	"fmt"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// PTx is one P-Chain transaction of the world: what it does, when, and, once
// the history is built, the block that holds it.
type PTx struct {
	ID     avax.ID
	Kind   string // the tx type, e.g. "AddPermissionlessValidatorTx"
	Time   int64
	Height uint64

	seq     int
	genesis bool         // in the P-Chain's genesis, not in a block
	funder  avax.ShortID // pays the fee and the stake; zero: ewoq

	validation *Validation // staking txs, subnet validator txs
	delegation *Delegation
	rewardOf   *PTx // RewardValidatorTx: the staking tx it rewards
	subnet     *Subnet
	chain      *Blockchain
	conversion *L1Conversion
	register   *L1Registration
	l1         *L1Change
	// amount is what an ExportTx exports, or what a BaseTx locks for peer.
	amount  uint64
	peer    avax.ShortID
	onBlock func(height uint64)

	// Set by the history: the tx's outputs and stake outputs, for the
	// RewardValidatorTx that returns the stake.
	outs  int
	stake []*avax.UTXO
}

// schedule collects the P-Chain's transactions before they are built into
// blocks, in time order (ties by the order they were added).
type schedule struct {
	w   *World
	txs []*PTx
}

func newSchedule(w *World) *schedule { return &schedule{w: w} }

// add schedules tx, giving it an id derived from its kind and place unless
// it has one.
func (p *schedule) add(tx *PTx) *PTx {
	tx.seq = len(p.txs)
	if tx.ID.IsEmpty() {
		tx.ID = p.w.deriveID("ptx", tx.Kind, fmt.Sprint(tx.seq))
	}
	p.txs = append(p.txs, tx)
	return tx
}

// byID returns the scheduled tx with id.
func (p *schedule) byID(id avax.ID) *PTx {
	for _, tx := range p.txs {
		if tx.ID == id {
			return tx
		}
	}
	return nil
}
