package devnet

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/avaedge/avaedge/local/avax"
)

// InitialSupply is the AVAX supply at genesis, in nAVAX.
const InitialSupply = 360_000_000 * nAVAX

// PTx is a P-chain transaction of the world. Only its id, kind, time and
// block height are modelled; its bytes are not.
type PTx struct {
	ID     avax.ID
	Kind   string // e.g. "AddPermissionlessValidatorTx", "RewardValidatorTx"
	Time   int64
	Height uint64

	seq        int
	funder     avax.ShortID // zero: ewoq pays
	stake      uint64
	stakeStart int64
	stakeEnd   int64
	validation *Validation
	delegation *Delegation
	rewardOf   *PTx
	onBlock    func(height uint64)
}

// Block is a P-chain or post-Cortina X-chain block. X blocks carry their
// bytes; P blocks are modelled without them.
type Block struct {
	ID, Parent avax.ID
	Height     uint64
	Time       int64
	Type       string // "BanffStandardBlock", "BanffProposalBlock", ...
	Txs        []avax.ID
	Size       int
	// Proposer fields (snowman++); HasProposer is false for genesis blocks.
	HasProposer          bool
	Proposer             avax.NodeID
	ProposerID           avax.ID
	ProposerParentID     avax.ID
	ProposerPChainHeight uint64
	// P-chain only: supply after the block and the L1 validators then.
	Supply             uint64
	ActiveL1Validators int
	L1AccruedFees      uint64
	// X-chain only.
	Raw   *avax.StandardBlock
	Bytes []byte
}

// UTXO is an output on the P- or X-chain with its history.
type UTXO struct {
	avax.UTXO
	ChainID        avax.ID // PChainID or XChainID
	Created        int64
	CreatedHeight  uint64
	Spent          bool
	ConsumingTxID  avax.ID
	ConsumedTime   int64
	ConsumedHeight uint64
	// Staked marks the stake output of a staking transaction, locked from
	// StakeStart to StakeEnd.
	Staked               bool
	StakeStart, StakeEnd int64
	Reward               RewardKind // the reward a RewardValidatorTx paid, or ""
}

// spend marks u consumed by txID at time t in the block at height h.
func (u *UTXO) spend(txID avax.ID, t int64, h uint64) {
	u.Spent, u.ConsumingTxID, u.ConsumedTime, u.ConsumedHeight = true, txID, t, h
}

// SetChange is a change of a subnet's validator set at a P-chain height.
type SetChange struct {
	Height    uint64
	NodeID    avax.NodeID
	Weight    int64 // added (positive) or removed (negative)
	PublicKey []byte
}

func transferOut(amount uint64, owner avax.ShortID) *avax.TransferOutput {
	return &avax.TransferOutput{Amt: amount, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{owner}}}
}

func (w *World) buildPChain(p *pending) {
	G := w.genesis
	r := w.rng("pchain")
	slices.SortStableFunc(p.txs, func(a, b *PTx) int { return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.seq, b.seq)) })

	genesis := &Block{ID: w.deriveID("pblock", "0"), Height: 0, Time: G, Type: "GenesisBlock", Size: 4096, Supply: InitialSupply}
	w.pBlocks = []*Block{genesis}

	// Genesis UTXOs: one transfer per address, a stakeable-locked one for
	// the third address.
	gtx := w.deriveID("p genesis")
	change := map[avax.ShortID]*UTXO{}
	for i, a := range w.addrs {
		amt := 1_000_000 * nAVAX
		if i == 0 {
			amt = 10_000_000 * nAVAX
		}
		u := &UTXO{UTXO: avax.UTXO{TxID: gtx, OutputIndex: uint32(i), AssetID: AVAXAssetID, Out: transferOut(amt, a)}, ChainID: PChainID, Created: G}
		w.pUTXOs = append(w.pUTXOs, u)
		change[a] = u
	}
	w.pUTXOs = append(w.pUTXOs, &UTXO{UTXO: avax.UTXO{TxID: gtx, OutputIndex: uint32(len(w.addrs)), AssetID: AVAXAssetID,
		Out: &avax.StakeableLockOut{Locktime: uint64(G + yearSeconds), Out: *transferOut(50_000*nAVAX, w.addrs[2])}}, ChainID: PChainID, Created: G})

	stakeUTXO := map[avax.ID]*UTXO{}
	supply := InitialSupply
	newBlock := func(t int64, typ string, txs []avax.ID) *Block {
		prev := w.pBlocks[len(w.pBlocks)-1]
		h := uint64(len(w.pBlocks))
		b := &Block{ID: w.deriveID("pblock", fmt.Sprint(h)), Parent: prev.ID, Height: h, Time: t, Type: typ, Txs: txs,
			Size: 230 + 420*len(txs)}
		w.pBlocks = append(w.pBlocks, b)
		return b
	}
	for _, tx := range p.txs {
		w.pTxs[tx.ID] = tx
		if tx.rewardOf != nil {
			b := newBlock(tx.Time, "BanffProposalBlock", []avax.ID{tx.ID})
			c := newBlock(tx.Time, "BanffCommitBlock", nil)
			tx.Height = b.Height
			paid := w.payReward(tx, stakeUTXO[tx.rewardOf.ID], c)
			supply += paid
			c.Supply, b.Supply = supply, supply-paid
			continue
		}
		b := newBlock(tx.Time, "BanffStandardBlock", []avax.ID{tx.ID})
		b.Supply = supply
		tx.Height = b.Height
		if tx.onBlock != nil {
			tx.onBlock(b.Height)
		}
		funder := tx.funder
		if funder == (avax.ShortID{}) {
			funder = w.addrs[0]
		}
		old := change[funder]
		old.spend(tx.ID, b.Time, b.Height)
		nu := &UTXO{UTXO: avax.UTXO{TxID: tx.ID, OutputIndex: 0, AssetID: AVAXAssetID, Out: transferOut(old.Out.Amount()-tx.stake-txFee, funder)},
			ChainID: PChainID, Created: b.Time, CreatedHeight: b.Height}
		w.pUTXOs = append(w.pUTXOs, nu)
		change[funder] = nu
		if tx.stake > 0 {
			s := &UTXO{UTXO: avax.UTXO{TxID: tx.ID, OutputIndex: 1, AssetID: AVAXAssetID, Out: transferOut(tx.stake, funder)},
				ChainID: PChainID, Created: b.Time, CreatedHeight: b.Height, Staked: true, StakeStart: tx.stakeStart, StakeEnd: tx.stakeEnd}
			w.pUTXOs = append(w.pUTXOs, s)
			stakeUTXO[tx.ID] = s
		}
	}
	w.setHeights()
	w.assignProposers(r)
	w.l1Fees()
}

// payReward spends the stake output of a completed stake and creates the
// returned stake and the reward outputs in the commit block c; it returns
// the AVAX minted.
func (w *World) payReward(tx *PTx, stake *UTXO, c *Block) uint64 {
	st := tx.rewardOf
	if stake == nil {
		return 0
	}
	stake.spend(tx.ID, c.Time, c.Height)
	owner := stake.Out.Owners().Addrs[0]
	add := func(idx uint32, amt uint64, to avax.ShortID, kind RewardKind) {
		if amt == 0 {
			return
		}
		w.pUTXOs = append(w.pUTXOs, &UTXO{UTXO: avax.UTXO{TxID: st.ID, OutputIndex: idx, AssetID: AVAXAssetID, Out: transferOut(amt, to)},
			ChainID: PChainID, Created: c.Time, CreatedHeight: c.Height, Reward: kind})
	}
	add(2, stake.Out.Amount(), owner, "")
	switch {
	case st.delegation != nil:
		d := st.delegation
		add(3, d.NetReward, d.RewardOwner[0], RewardDelegator)
		return d.NetReward
	case st.validation != nil:
		v := st.validation
		add(3, v.Reward, v.RewardOwner[0], RewardValidator)
		add(4, v.DelegationReward, v.RewardOwner[0], RewardValidatorFee)
		return v.Reward + v.DelegationReward
	}
	return 0
}

// heightAt returns the height of the first block with time >= t, ok false
// if there is none.
func (w *World) heightAt(t int64) (uint64, bool) {
	i, _ := slices.BinarySearchFunc(w.pBlocks, t, func(b *Block, t int64) int { return cmp.Compare(b.Time, t) })
	if i == len(w.pBlocks) {
		return 0, false
	}
	return w.pBlocks[i].Height, true
}

// setHeights fixes when each stake entered and left its validator set, and
// records the set changes per subnet.
func (w *World) setHeights() {
	enter := func(start, end int64) (add, rm uint64, in bool) {
		if start > w.genesis {
			if add, in = w.heightAt(start); !in {
				return 0, 0, false
			}
		}
		rm, _ = w.heightAt(end)
		return add, rm, true
	}
	for _, v := range w.validations {
		end := v.End
		if v.removed {
			end = v.RemoveTime
		}
		add, rm, in := enter(v.Start, end)
		if !in {
			continue
		}
		v.AddHeight, v.RemoveHeight = add, rm
		var pk []byte
		if v.SubnetID.IsEmpty() {
			if v.BLS != nil {
				pk = v.BLS.PublicKey
			}
		} else if n := w.nodeIdx[v.NodeID]; n != nil {
			pk = n.bls.PublicKey
		}
		w.changes[v.SubnetID] = append(w.changes[v.SubnetID], SetChange{Height: add, NodeID: v.NodeID, Weight: int64(v.Weight), PublicKey: pk})
		if rm != 0 {
			w.changes[v.SubnetID] = append(w.changes[v.SubnetID], SetChange{Height: rm, NodeID: v.NodeID, Weight: -int64(v.Weight), PublicKey: pk})
		}
	}
	for _, d := range w.delegations {
		add, rm, in := enter(d.Start, d.End)
		if !in {
			continue
		}
		d.AddHeight, d.RemoveHeight = add, rm
		var pk []byte
		if v := w.validationOf(d); v != nil && v.BLS != nil {
			pk = v.BLS.PublicKey
		}
		w.changes[PChainID] = append(w.changes[PChainID], SetChange{Height: add, NodeID: d.NodeID, Weight: int64(d.Weight), PublicKey: pk})
		if rm != 0 {
			w.changes[PChainID] = append(w.changes[PChainID], SetChange{Height: rm, NodeID: d.NodeID, Weight: -int64(d.Weight), PublicKey: pk})
		}
	}
	if w.conversion != nil {
		w.changes[w.conversion.SubnetID] = w.l1Changes
	}
	for id := range w.changes {
		slices.SortStableFunc(w.changes[id], func(a, b SetChange) int { return cmp.Compare(a.Height, b.Height) })
	}
}

// inSet reports whether a validation is in its validator set at height h.
func (w *World) inSet(v *Validation, h uint64) bool {
	entered := v.Start <= w.genesis || v.AddHeight > 0
	return entered && v.AddHeight <= h && (v.RemoveHeight == 0 || v.RemoveHeight > h)
}

// activeAt returns the primary validations in the validator set at height h,
// by node id.
func (w *World) activeAt(h uint64) []*Validation {
	var out []*Validation
	for _, v := range w.validations {
		if v.SubnetID.IsEmpty() && w.inSet(v, h) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b *Validation) int { return bytes.Compare(a.NodeID[:], b.NodeID[:]) })
	return out
}

func (w *World) assignProposers(r interface{ IntN(int) int }) {
	var prevProposer avax.ID
	for _, b := range w.pBlocks[1:] {
		set := w.activeAt(b.Height - 1)
		if len(set) == 0 {
			continue
		}
		v := set[r.IntN(len(set))]
		b.HasProposer = true
		b.Proposer = v.NodeID
		b.ProposerID = w.deriveID("pproposer", fmt.Sprint(b.Height))
		b.ProposerParentID = prevProposer
		if prevProposer.IsEmpty() {
			b.ProposerParentID = b.Parent
		}
		b.ProposerPChainHeight = b.Height - 1
		prevProposer = b.ProposerID
	}
}

// l1Fees fills each P block's count of active L1 validators and the fees
// they have accrued (512 nAVAX per validator per second).
func (w *World) l1Fees() {
	for _, b := range w.pBlocks {
		var fees uint64
		n := 0
		for _, c := range w.l1Changes {
			if c.Height <= b.Height {
				n++
				fees += 512 * uint64(b.Time-w.pBlocks[c.Height].Time)
			}
		}
		b.ActiveL1Validators, b.L1AccruedFees = n, fees
	}
}

// PBlocks returns the P-chain blocks by height. The slice is shared: do not
// modify it.
func (w *World) PBlocks() []*Block { return w.pBlocks }

// PTx returns the P-chain transaction with id.
func (w *World) PTx(id avax.ID) (*PTx, bool) { tx, ok := w.pTxs[id]; return tx, ok }

// PUTXOs returns every P-chain UTXO, spent or not, in creation order. The
// slice is shared: do not modify it.
func (w *World) PUTXOs() []*UTXO { return w.pUTXOs }
