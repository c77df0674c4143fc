package devnet

import (
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// unsigned makes tx's unsigned transaction (its JSON form) and applies it to
// the world's P-Chain UTXOs: it spends the funder's UTXOs and keeps the
// change, and records the stake outputs a reward returns.
func (h *history) unsigned(tx *PTx) (any, error) {
	build, ok := unsignedOf[tx.Kind]
	if !ok {
		return nil, fmt.Errorf("devnet: no P-Chain transaction of kind %s", tx.Kind)
	}
	funder := tx.funder
	if funder == (avax.ShortID{}) {
		funder = h.w.addrs[0] // ewoq
	}
	return build(&ptxBuilder{h: h, tx: tx, funder: funder})
}

// unsignedOf makes the unsigned transaction of each kind.
var unsignedOf = map[string]func(*ptxBuilder) (any, error){
	"ImportTx": (*ptxBuilder).importTx, "BaseTx": (*ptxBuilder).baseTx, "ExportTx": (*ptxBuilder).exportTx,
	"AddPermissionlessValidatorTx": (*ptxBuilder).addValidatorTx, "AddValidatorTx": (*ptxBuilder).addValidatorTx,
	"AddPermissionlessDelegatorTx": (*ptxBuilder).addDelegatorTx, "RewardValidatorTx": (*ptxBuilder).rewardValidatorTx,
	"AddSubnetValidatorTx": (*ptxBuilder).addSubnetValidatorTx, "RemoveSubnetValidatorTx": (*ptxBuilder).removeSubnetValidatorTx,
	"CreateSubnetTx": (*ptxBuilder).createSubnetTx, "CreateChainTx": (*ptxBuilder).createChainTx,
	"ConvertSubnetToL1Tx": (*ptxBuilder).convertTx, "RegisterL1ValidatorTx": (*ptxBuilder).registerTx,
	"SetL1ValidatorWeightTx": (*ptxBuilder).setWeightTx, "IncreaseL1ValidatorBalanceTx": (*ptxBuilder).increaseBalanceTx,
	"DisableL1ValidatorTx": (*ptxBuilder).disableTx,
}

// ptxBuilder makes one P-Chain transaction: tx, paid by funder.
type ptxBuilder struct {
	h      *history
	tx     *PTx
	funder avax.ShortID
}

// auth is a subnet's or an L1 validator's authorization: its owner's first
// key signs.
var auth = authJSON{SignatureIndices: []uint32{0}}

// paid returns the base of a transaction the funder pays amount (plus the
// fee) in.
func (b *ptxBuilder) paid(amount uint64) (pBaseJSON, error) {
	base, err := b.h.base(b.tx, b.funder, amount)
	b.tx.outs = len(base.Outputs)
	return base, err
}

// importTx imports every UTXO the X-Chain exported to the funder.
func (b *ptxBuilder) importTx() (any, error) {
	h, tx, funder := b.h, b.tx, b.funder
	var sum uint64
	var ins []pInputJSON
	for _, u := range h.toP[funder] {
		ins = append(ins, pInput(u))
		sum += u.Out.Amount()
	}
	delete(h.toP, funder)
	if sum <= txFee {
		return nil, fmt.Errorf("devnet: %s imports %d to the P-Chain", funder, sum)
	}
	out := &avax.UTXO{TxID: tx.ID, AssetID: AVAXAssetID, Out: transferOut(sum-txFee, funder)}
	h.receive(out)
	tx.outs = 1
	return pImportJSON{pBaseJSON: pBaseJSON{NetworkID: NetworkID, BlockchainID: PChainID.String(), Outputs: []pOutputJSON{pOutput(out.Out)},
		Inputs: []pInputJSON{}, Memo: "0x"}, SourceChain: XChainID.String(), ImportedInputs: ins}, nil
}

// baseTx: ewoq locks amount for peer until a year after genesis.
func (b *ptxBuilder) baseTx() (any, error) {
	tx := b.tx
	base, err := b.paid(tx.amount)
	if err != nil {
		return nil, err
	}
	locked := &avax.StakeableLockOut{Locktime: uint64(b.h.w.genesis + lockedFor), Out: *transferOut(tx.amount, tx.peer)}
	base.Outputs = append(base.Outputs, pOutput(locked))
	return base, nil
}

// exportTx: ewoq exports amount to the X-Chain, output 1.
func (b *ptxBuilder) exportTx() (any, error) {
	tx := b.tx
	base, err := b.paid(tx.amount)
	if err != nil {
		return nil, err
	}
	if len(base.Outputs) != 1 {
		return nil, fmt.Errorf("devnet: the P-Chain's export has %d outputs before the exported one; the X-Chain imports output 1", len(base.Outputs))
	}
	return pExportJSON{pBaseJSON: base, DestinationChain: XChainID.String(),
		ExportedOutputs: []pOutputJSON{pOutput(transferOut(tx.amount, b.h.w.addrs[0]))}}, nil
}

// addValidatorTx is an AddValidatorTx or AddPermissionlessValidatorTx (a
// genesis staker's pays nothing).
func (b *ptxBuilder) addValidatorTx() (any, error) {
	tx := b.tx
	v := tx.validation
	base := pBaseJSON{NetworkID: NetworkID, BlockchainID: PChainID.String(), Outputs: []pOutputJSON{}, Inputs: []pInputJSON{}, Memo: "0x"}
	if !tx.genesis {
		var err error
		if base, err = b.paid(v.Weight); err != nil {
			return nil, err
		}
	}
	stake := b.h.stakeOuts(tx, len(base.Outputs), v.Weight, b.funder)
	val := validatorJSON{NodeID: v.NodeID.String(), Start: v.Start, End: v.End, Weight: v.Weight}
	owner := ownerOf(Owner{Threshold: 1, Addresses: v.RewardOwner}, avanet.Local.HRP)
	if tx.Kind == "AddValidatorTx" {
		return addValidatorJSON{pBaseJSON: base, Validator: val, Stake: stake, RewardsOwner: owner, Shares: v.DelegationFee}, nil
	}
	return addPermissionlessValidatorJSON{pBaseJSON: base, Validator: val, SubnetID: PChainID.String(),
		Signer: signerJSON{PublicKey: avax.EncodeHexNC(v.BLS.PublicKey), ProofOfPossession: avax.EncodeHexNC(v.BLS.ProofOfPossession)},
		Stake:  stake, ValidationOwner: owner, DelegationOwner: owner, Shares: v.DelegationFee}, nil
}

func (b *ptxBuilder) addDelegatorTx() (any, error) {
	tx := b.tx
	d := tx.delegation
	base, err := b.paid(d.Weight)
	if err != nil {
		return nil, err
	}
	return addPermissionlessDelegatorJSON{pBaseJSON: base, Validator: validatorJSON{NodeID: d.NodeID.String(), Start: d.Start, End: d.End, Weight: d.Weight},
		SubnetID: PChainID.String(), Stake: b.h.stakeOuts(tx, len(base.Outputs), d.Weight, b.funder),
		RewardsOwner: ownerOf(Owner{Threshold: 1, Addresses: d.RewardOwner}, avanet.Local.HRP)}, nil
}

func (b *ptxBuilder) rewardValidatorTx() (any, error) {
	return rewardValidatorJSON{TxID: b.tx.rewardOf.ID.String()}, nil
}

func (b *ptxBuilder) addSubnetValidatorTx() (any, error) {
	v := b.tx.validation
	base, err := b.paid(0)
	if err != nil {
		return nil, err
	}
	return addSubnetValidatorJSON{pBaseJSON: base, Validator: subnetValidatorJSON{
		validatorJSON: validatorJSON{NodeID: v.NodeID.String(), Start: v.Start, End: v.End, Weight: v.Weight}, SubnetID: v.SubnetID.String()},
		SubnetAuth: auth}, nil
}

func (b *ptxBuilder) removeSubnetValidatorTx() (any, error) {
	base, err := b.paid(0)
	if err != nil {
		return nil, err
	}
	v := b.tx.validation
	return removeSubnetValidatorJSON{pBaseJSON: base, NodeID: v.NodeID.String(), SubnetID: v.SubnetID.String(), SubnetAuth: auth}, nil
}

func (b *ptxBuilder) createSubnetTx() (any, error) {
	base, err := b.paid(0)
	if err != nil {
		return nil, err
	}
	return createSubnetJSON{pBaseJSON: base, Owner: ownerOf(b.tx.subnet.Owner, avanet.Local.HRP)}, nil
}

func (b *ptxBuilder) createChainTx() (any, error) {
	c := b.tx.chain
	base, err := b.paid(0)
	if err != nil {
		return nil, err
	}
	genesis, err := json.Marshal(c.Genesis)
	if err != nil {
		return nil, err
	}
	return createChainJSON{pBaseJSON: base, SubnetID: c.SubnetID.String(), ChainName: c.Name, VMID: c.VMID.String(), FxIDs: []string{},
		GenesisData: genesis, SubnetAuth: auth}, nil
}

// convertTx is a ConvertSubnetToL1Tx, which pays its validators' balances.
func (b *ptxBuilder) convertTx() (any, error) {
	c := b.tx.conversion
	var balances uint64
	vals := make([]convertValidatorJSON, len(c.Validators))
	for i, v := range c.Validators {
		balances += v.Balance
		vals[i] = convertValidatorJSON{NodeID: "0x" + hex.EncodeToString(v.NodeID[:]), Weight: v.Weight, Balance: v.Balance,
			Signer:                signerJSON{PublicKey: avax.EncodeHexNC(v.BLS.PublicKey), ProofOfPossession: avax.EncodeHexNC(v.BLS.ProofOfPossession)},
			RemainingBalanceOwner: pchainOwner(v.RemainingBalanceOwner), DeactivationOwner: pchainOwner(v.DeactivationOwner)}
	}
	base, err := b.paid(balances)
	if err != nil {
		return nil, err
	}
	return convertJSON{pBaseJSON: base, SubnetID: c.SubnetID.String(), ChainID: c.ChainID.String(), Address: "0x" + hex.EncodeToString(c.Address),
		Validators: vals, SubnetAuth: auth}, nil
}

// registerTx is a RegisterL1ValidatorTx with its validator manager's signed
// message.
func (b *ptxBuilder) registerTx() (any, error) {
	w, r := b.h.w, b.tx.register
	base, err := b.paid(r.Balance)
	if err != nil {
		return nil, err
	}
	msg, err := w.fromManager(r.Message().Bytes(), w.l1SetAt(r.Time))
	if err != nil {
		return nil, err
	}
	return registerJSON{pBaseJSON: base, Balance: r.Balance, ProofOfPossession: byteArray(r.BLS.ProofOfPossession), Message: avax.EncodeHexNC(msg)}, nil
}

// setWeightTx is a SetL1ValidatorWeightTx with its validator manager's
// signed message.
func (b *ptxBuilder) setWeightTx() (any, error) {
	w, c := b.h.w, b.tx.l1
	base, err := b.paid(0)
	if err != nil {
		return nil, err
	}
	m := &warpmsg.L1ValidatorWeight{ValidationID: [32]byte(c.ValidationID), Nonce: c.Nonce, Weight: c.Weight}
	msg, err := w.fromManager(m.Bytes(), w.l1SetAt(c.Time))
	if err != nil {
		return nil, err
	}
	return setWeightJSON{pBaseJSON: base, Message: avax.EncodeHexNC(msg)}, nil
}

func (b *ptxBuilder) increaseBalanceTx() (any, error) {
	c := b.tx.l1
	base, err := b.paid(c.Balance)
	if err != nil {
		return nil, err
	}
	return increaseBalanceJSON{pBaseJSON: base, ValidationID: c.ValidationID.String(), Balance: c.Balance}, nil
}

func (b *ptxBuilder) disableTx() (any, error) {
	base, err := b.paid(0)
	if err != nil {
		return nil, err
	}
	return disableJSON{pBaseJSON: base, ValidationID: b.tx.l1.ValidationID.String(), DisableAuth: auth}, nil
}

// l1SetAt returns the nodes of the L1's validators registered before t.
func (w *World) l1SetAt(t int64) []avax.NodeID {
	var out []avax.NodeID
	if c := w.conversion; c != nil && c.Time < t {
		for _, v := range c.Validators {
			out = append(out, v.NodeID)
		}
	}
	for _, r := range w.registers {
		if r.Time < t {
			out = append(out, r.NodeID)
		}
	}
	return out
}
