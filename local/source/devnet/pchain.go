package devnet

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// InitialSupply is the AVAX supply at genesis, in nAVAX.
const InitialSupply = 360_000_000 * nAVAX

// Block is a P-Chain or X-Chain block with what only the devnet knows of it:
// its proposer (snowman++), and on the P-Chain the supply after it and its
// L1 validators. X-Chain blocks carry their bytes.
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

func transferOut(amount uint64, owner avax.ShortID) *avax.TransferOutput {
	return &avax.TransferOutput{Amt: amount, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{owner}}}
}

// lockedFor is how long the stakeable-locked UTXO ewoq gives the third
// address stays locked.
const lockedFor = yearSeconds

// planTransfers schedules the P-Chain's own transfers: each address imports
// what it exported from the X-Chain in X block 1, ewoq gives the third
// address a stakeable-locked UTXO, and exports AVAX to the X-Chain. It
// returns the export.
func (w *World) planTransfers(p *schedule) *PTx {
	G := w.genesis
	for _, a := range w.addrs {
		p.add(&PTx{Kind: "ImportTx", Time: G + 13*hour, funder: a})
	}
	p.add(&PTx{Kind: "BaseTx", Time: G + 14*hour, peer: w.addrs[2], amount: 50_000 * nAVAX})
	return p.add(&PTx{Kind: "ExportTx", Time: G + 3*day + hour, amount: ewoqFromP})
}

// history builds the world's P- and X-Chain from its schedule: the X-Chain
// first (its exports fund the P-Chain), then the P-Chain.
type history struct {
	w *World
	s *schedule
	// toP are the X-Chain's exports to the P-Chain, by owner, until
	// imported; fromP is the P-Chain's export to the X-Chain.
	toP   map[avax.ShortID][]*avax.UTXO
	fromP *PTx
	// unspent are the spendable P-Chain UTXOs of the world's addresses,
	// oldest first.
	unspent map[avax.ShortID][]*avax.UTXO
}

func newHistory(w *World, s *schedule) *history {
	h := &history{w: w, s: s, toP: map[avax.ShortID][]*avax.UTXO{}, unspent: map[avax.ShortID][]*avax.UTXO{}}
	h.fromP = w.planTransfers(s)
	return h
}

// pay spends a's P-Chain UTXOs, oldest first, for amount plus the fee, and
// returns the inputs and the change output (none when exact).
func (h *history) pay(a avax.ShortID, amount uint64) ([]pInputJSON, []pOutputJSON, *avax.UTXO, error) {
	need := amount + txFee
	var (
		ins []pInputJSON
		sum uint64
	)
	kept := h.unspent[a][:0]
	for _, u := range h.unspent[a] {
		if sum >= need {
			kept = append(kept, u)
			continue
		}
		ins = append(ins, pInput(u))
		sum += u.Out.Amount()
	}
	h.unspent[a] = kept
	if sum < need {
		return nil, nil, nil, fmt.Errorf("devnet: %s holds %d on the P-Chain; a transaction needs %d", a, sum, need)
	}
	slices.SortFunc(ins, func(x, y pInputJSON) int {
		return cmp.Or(bytes.Compare(x.id[:], y.id[:]), cmp.Compare(x.OutputIndex, y.OutputIndex))
	})
	if sum == need {
		return ins, []pOutputJSON{}, nil, nil
	}
	change := &avax.UTXO{OutputIndex: 0, AssetID: AVAXAssetID, Out: transferOut(sum-need, a)}
	return ins, []pOutputJSON{pOutput(change.Out)}, change, nil
}

func pInput(u *avax.UTXO) pInputJSON {
	return pInputJSON{id: u.TxID, TxID: u.TxID.String(), OutputIndex: u.OutputIndex, AssetID: u.AssetID.String(), FxID: avax.SECP256K1FxID.String(),
		Input: transferInput{Amount: u.Out.Amount(), SignatureIndices: []uint32{0}}}
}

func pOutput(o avax.Output) pOutputJSON {
	out := pOutputJSON{AssetID: AVAXAssetID.String(), FxID: avax.SECP256K1FxID.String()}
	owners := o.Owners()
	addrs := make([]string, len(owners.Addrs))
	for i, a := range owners.Addrs {
		addrs[i] = avax.FormatAddress("P", avanet.Local.HRP, a)
	}
	t := transferJSON{Addresses: addrs, Amount: o.Amount(), Locktime: owners.Locktime, Threshold: owners.Threshold}
	out.Output = t
	if l, ok := o.(*avax.StakeableLockOut); ok {
		out.Output = lockOutJSON{Locktime: l.Locktime, Output: t}
	}
	return out
}

// receive adds u to its owner's spendable UTXOs; stakeable-locked ones are
// not spent by the world.
func (h *history) receive(u *avax.UTXO) {
	if _, locked := u.Out.(*avax.StakeableLockOut); locked {
		return
	}
	owner := u.Out.Owners().Addrs[0]
	h.unspent[owner] = append(h.unspent[owner], u)
}

// base is a BaseTx's fields paid by funder for amount plus the fee. Its
// change, when there is one, is output 0 of tx.
func (h *history) base(tx *PTx, funder avax.ShortID, amount uint64) (pBaseJSON, error) {
	ins, outs, change, err := h.pay(funder, amount)
	if err != nil {
		return pBaseJSON{}, fmt.Errorf("%s %s: %w", tx.Kind, tx.ID, err)
	}
	if change != nil {
		change.TxID = tx.ID
		h.receive(change)
	}
	return pBaseJSON{NetworkID: NetworkID, BlockchainID: PChainID.String(), Outputs: outs, Inputs: ins, Memo: "0x"}, nil
}

// stakeOuts are tx's stake: amount owned by owner, after its outputs.
func (h *history) stakeOuts(tx *PTx, outs int, amount uint64, owner avax.ShortID) []pOutputJSON {
	u := &avax.UTXO{TxID: tx.ID, OutputIndex: uint32(outs), AssetID: AVAXAssetID, Out: transferOut(amount, owner)}
	tx.outs, tx.stake = outs, []*avax.UTXO{u}
	return []pOutputJSON{pOutput(u.Out)}
}

// buildPChain makes the P-Chain's blocks from the schedule: the genesis
// stakers in its genesis, then a standard block per transaction, and a
// proposal block with its commit block per RewardValidatorTx.
func (h *history) buildPChain() error {
	w := h.w
	G := w.genesis
	slices.SortStableFunc(h.s.txs, func(a, b *PTx) int { return cmp.Or(cmp.Compare(a.Time, b.Time), cmp.Compare(a.seq, b.seq)) })

	genesis := &Block{ID: w.deriveID("pblock", "0"), Height: 0, Time: G, Type: "ApricotCommitBlock", Size: 4096, Supply: InitialSupply}
	w.pBlocks = []*Block{genesis}
	g := &pindex.RawBlock{Height: 0, Type: genesis.Type, Size: genesis.Size}
	chains, err := primaryChains()
	if err != nil {
		return err
	}
	g.Genesis = chains
	supply := InitialSupply
	var raws []*pindex.RawBlock
	newBlock := func(t int64, typ string, txs []avax.ID) *Block {
		prev := w.pBlocks[len(w.pBlocks)-1]
		b := &Block{ID: w.deriveID("pblock", fmt.Sprint(len(w.pBlocks))), Parent: prev.ID, Height: uint64(len(w.pBlocks)), Time: t, Type: typ, Txs: txs,
			Size: 230 + 420*len(txs)}
		w.pBlocks = append(w.pBlocks, b)
		return b
	}
	for _, tx := range h.s.txs {
		w.pTxs[tx.ID] = tx
		unsigned, err := h.unsigned(tx)
		if err != nil {
			return err
		}
		body, err := json.Marshal(pTxJSON{Unsigned: unsigned, Credentials: []any{}, ID: tx.ID.String()})
		if err != nil {
			return err
		}
		if tx.genesis {
			g.Genesis = append(g.Genesis, body)
			continue
		}
		if tx.rewardOf != nil {
			b := newBlock(tx.Time, "BanffProposalBlock", []avax.ID{tx.ID})
			c := newBlock(tx.Time, "BanffCommitBlock", nil)
			tx.Height = b.Height
			paid := h.rewards(tx)
			var total uint64
			for _, p := range paid {
				total += p.UTXO.Out.Amount()
			}
			b.Supply, supply = supply, supply+total
			c.Supply = supply
			rb := h.rawBlock(b, nil, body)
			rb.Paid = map[string][]pindex.Paid{tx.ID.String(): paid}
			raws = append(raws, rb, h.rawBlock(c, nil, nil))
			continue
		}
		b := newBlock(tx.Time, "BanffStandardBlock", []avax.ID{tx.ID})
		b.Supply = supply
		tx.Height = b.Height
		if tx.onBlock != nil {
			tx.onBlock(b.Height)
		}
		rb := h.rawBlock(b, []json.RawMessage{body}, nil)
		if tx.l1 != nil && tx.l1.Kind == "DisableL1ValidatorTx" {
			rb.Paid = map[string][]pindex.Paid{tx.ID.String(): {h.returnedBalance(tx)}}
		}
		raws = append(raws, rb)
	}
	if g.JSON, err = json.Marshal(pBlockJSON{Time: G, ParentID: avax.EmptyID.String(), Height: 0, ID: genesis.ID.String()}); err != nil {
		return err
	}
	w.raw[avanet.ChainP] = append([]*pindex.RawBlock{g}, raws...)
	w.setHeights()
	w.assignProposers()
	w.l1Fees()
	return nil
}

// primaryChains are the CreateChainTxs of the P-Chain's genesis that made
// the X- and C-Chain (their ids the chains'), as platform.getTx prints
// them: the X-Chain's genesis (the AVM's bytes) is not modelled, the C-Chain's is the
// dev chain's EVM genesis (its chain id).
func primaryChains() ([]json.RawMessage, error) {
	var out []json.RawMessage
	for _, c := range []struct {
		id, vm  avax.ID
		name    string
		genesis []byte
	}{
		{XChainID, AVMID, "X-Chain", []byte{}},
		{CChainID, EVMID, "C-Chain", []byte(fmt.Sprintf(`{"config":{"chainId":%d}}`, avanet.Local.EVMChainID))},
	} {
		u := createChainJSON{pBaseJSON: pBaseJSON{NetworkID: NetworkID, BlockchainID: PChainID.String(), Outputs: []pOutputJSON{}, Inputs: []pInputJSON{},
			Memo: "0x"}, SubnetID: PChainID.String(), ChainName: c.name, VMID: c.vm.String(), FxIDs: []string{}, GenesisData: c.genesis,
			SubnetAuth: authJSON{SignatureIndices: []uint32{}}}
		b, err := json.Marshal(pTxJSON{Unsigned: u, Credentials: []any{}, ID: c.id.String()})
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// rawBlock is b in the node's encoding: its txs (standard) or tx (proposal).
func (h *history) rawBlock(b *Block, txs []json.RawMessage, tx json.RawMessage) *pindex.RawBlock {
	js, _ := json.Marshal(pBlockJSON{Time: b.Time, ParentID: b.Parent.String(), Height: b.Height, Txs: txs, Tx: tx, ID: b.ID.String()})
	return &pindex.RawBlock{Height: b.Height, JSON: js, Type: b.Type, Size: b.Size}
}

// rewards returns the UTXOs the RewardValidatorTx tx pays when its stake
// completes, as avalanchego pays them: after the staking tx's outputs and
// stake (which return to their owner), the reward, and for a validator the
// delegation fees its delegators paid. Each becomes spendable.
func (h *history) rewards(tx *PTx) []pindex.Paid {
	st := tx.rewardOf
	for _, u := range st.stake {
		h.receive(u)
	}
	next := uint32(st.outs + len(st.stake))
	var paid []pindex.Paid
	add := func(amount uint64, owner avax.ShortID, kind string) {
		if amount == 0 {
			return
		}
		u := avax.UTXO{TxID: st.ID, OutputIndex: next, AssetID: AVAXAssetID, Out: transferOut(amount, owner)}
		next++
		paid = append(paid, pindex.Paid{UTXO: u, Reward: kind})
		h.receive(&u)
	}
	switch {
	case st.delegation != nil:
		d := st.delegation
		add(d.NetReward, d.RewardOwner[0], pindex.RewardDelegator)
	case st.validation != nil:
		v := st.validation
		add(v.Reward, v.RewardOwner[0], pindex.RewardValidator)
		add(v.DelegationReward, v.RewardOwner[0], pindex.RewardValidatorFee)
	}
	return paid
}

// returnedBalance is the UTXO a DisableL1ValidatorTx returns the validator's
// balance in (the devnet charges no continuous fee, so all of it).
func (h *history) returnedBalance(tx *PTx) pindex.Paid {
	c := tx.l1
	var balance uint64
	var owner Owner
	for i, v := range h.w.conversion.Validators {
		if h.w.conversion.SubnetID.Append(uint32(i)) == c.ValidationID {
			balance, owner = v.Balance, v.RemainingBalanceOwner
		}
	}
	for _, o := range h.w.l1Ops {
		if o.ValidationID == c.ValidationID && o.Height < tx.Height && o.Kind == "IncreaseL1ValidatorBalanceTx" {
			balance += o.Balance
		}
	}
	u := avax.UTXO{TxID: tx.ID, OutputIndex: uint32(tx.outs), AssetID: AVAXAssetID, Out: transferOut(balance, owner.Addresses[0])}
	h.receive(&u)
	return pindex.Paid{UTXO: u}
}

// l1Fees fills each P block's count of active L1 validators and the fees
// they have accrued (512 nAVAX per validator per second).
func (w *World) l1Fees() {
	type span struct{ from, to uint64 } // to 0: still active
	var spans []span
	if c := w.conversion; c != nil {
		for i := range c.Validators {
			s := span{from: c.Height}
			for _, o := range w.l1Ops {
				if o.Kind == "DisableL1ValidatorTx" && o.ValidationID == c.SubnetID.Append(uint32(i)) {
					s.to = o.Height
				}
			}
			spans = append(spans, s)
		}
	}
	for _, r := range w.registers {
		spans = append(spans, span{from: r.Height})
	}
	for _, b := range w.pBlocks {
		var fees uint64
		n := 0
		for _, s := range spans {
			if s.from <= b.Height && (s.to == 0 || b.Height < s.to) {
				n++
				fees += 512 * uint64(b.Time-w.pBlocks[s.from].Time)
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
