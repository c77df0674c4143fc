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
	w := h.w
	ewoq := w.addrs[0]
	funder := tx.funder
	if funder == (avax.ShortID{}) {
		funder = ewoq
	}
	auth := authJSON{SignatureIndices: []uint32{0}}
	// txs paid by the funder for amount (plus the fee).
	paid := func(amount uint64) (pBaseJSON, error) {
		b, err := h.base(tx, funder, amount)
		tx.outs = len(b.Outputs)
		return b, err
	}
	switch tx.Kind {
	case "ImportTx":
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

	case "BaseTx": // ewoq locks amount for peer until a year after genesis
		b, err := paid(tx.amount)
		if err != nil {
			return nil, err
		}
		locked := &avax.StakeableLockOut{Locktime: uint64(w.genesis + lockedFor), Out: *transferOut(tx.amount, tx.peer)}
		b.Outputs = append(b.Outputs, pOutput(locked))
		return b, nil

	case "ExportTx": // ewoq exports amount to the X-Chain, output 1
		b, err := paid(tx.amount)
		if err != nil {
			return nil, err
		}
		if len(b.Outputs) != 1 {
			return nil, fmt.Errorf("devnet: the P-Chain's export has %d outputs before the exported one; the X-Chain imports output 1", len(b.Outputs))
		}
		return pExportJSON{pBaseJSON: b, DestinationChain: XChainID.String(),
			ExportedOutputs: []pOutputJSON{pOutput(transferOut(tx.amount, ewoq))}}, nil

	case "AddPermissionlessValidatorTx", "AddValidatorTx":
		v := tx.validation
		b := pBaseJSON{NetworkID: NetworkID, BlockchainID: PChainID.String(), Outputs: []pOutputJSON{}, Inputs: []pInputJSON{}, Memo: "0x"}
		if !tx.genesis {
			var err error
			if b, err = paid(v.Weight); err != nil {
				return nil, err
			}
		}
		stake := h.stakeOuts(tx, len(b.Outputs), v.Weight, funder)
		val := validatorJSON{NodeID: v.NodeID.String(), Start: v.Start, End: v.End, Weight: v.Weight}
		owner := ownerOf(Owner{Threshold: 1, Addresses: v.RewardOwner}, avanet.Local.HRP)
		if tx.Kind == "AddValidatorTx" {
			return addValidatorJSON{pBaseJSON: b, Validator: val, Stake: stake, RewardsOwner: owner, Shares: v.DelegationFee}, nil
		}
		return addPermissionlessValidatorJSON{pBaseJSON: b, Validator: val, SubnetID: PChainID.String(),
			Signer: signerJSON{PublicKey: avax.EncodeHexNC(v.BLS.PublicKey), ProofOfPossession: avax.EncodeHexNC(v.BLS.ProofOfPossession)},
			Stake:  stake, ValidationOwner: owner, DelegationOwner: owner, Shares: v.DelegationFee}, nil

	case "AddPermissionlessDelegatorTx":
		d := tx.delegation
		b, err := paid(d.Weight)
		if err != nil {
			return nil, err
		}
		return addPermissionlessDelegatorJSON{pBaseJSON: b, Validator: validatorJSON{NodeID: d.NodeID.String(), Start: d.Start, End: d.End, Weight: d.Weight},
			SubnetID: PChainID.String(), Stake: h.stakeOuts(tx, len(b.Outputs), d.Weight, funder),
			RewardsOwner: ownerOf(Owner{Threshold: 1, Addresses: d.RewardOwner}, avanet.Local.HRP)}, nil

	case "RewardValidatorTx":
		return rewardValidatorJSON{TxID: tx.rewardOf.ID.String()}, nil

	case "AddSubnetValidatorTx":
		v := tx.validation
		b, err := paid(0)
		if err != nil {
			return nil, err
		}
		return addSubnetValidatorJSON{pBaseJSON: b, Validator: subnetValidatorJSON{
			validatorJSON: validatorJSON{NodeID: v.NodeID.String(), Start: v.Start, End: v.End, Weight: v.Weight}, SubnetID: v.SubnetID.String()},
			SubnetAuth: auth}, nil

	case "RemoveSubnetValidatorTx":
		b, err := paid(0)
		if err != nil {
			return nil, err
		}
		return removeSubnetValidatorJSON{pBaseJSON: b, NodeID: tx.validation.NodeID.String(), SubnetID: tx.validation.SubnetID.String(), SubnetAuth: auth}, nil

	case "CreateSubnetTx":
		b, err := paid(0)
		if err != nil {
			return nil, err
		}
		return createSubnetJSON{pBaseJSON: b, Owner: ownerOf(tx.subnet.Owner, avanet.Local.HRP)}, nil

	case "CreateChainTx":
		c := tx.chain
		b, err := paid(0)
		if err != nil {
			return nil, err
		}
		genesis, err := json.Marshal(c.Genesis)
		if err != nil {
			return nil, err
		}
		return createChainJSON{pBaseJSON: b, SubnetID: c.SubnetID.String(), ChainName: c.Name, VMID: c.VMID.String(), FxIDs: []string{},
			GenesisData: genesis, SubnetAuth: auth}, nil

	case "ConvertSubnetToL1Tx":
		c := tx.conversion
		var balances uint64
		vals := make([]convertValidatorJSON, len(c.Validators))
		for i, v := range c.Validators {
			balances += v.Balance
			vals[i] = convertValidatorJSON{NodeID: "0x" + hex.EncodeToString(v.NodeID[:]), Weight: v.Weight, Balance: v.Balance,
				Signer:                signerJSON{PublicKey: avax.EncodeHexNC(v.BLS.PublicKey), ProofOfPossession: avax.EncodeHexNC(v.BLS.ProofOfPossession)},
				RemainingBalanceOwner: pchainOwner(v.RemainingBalanceOwner), DeactivationOwner: pchainOwner(v.DeactivationOwner)}
		}
		b, err := paid(balances)
		if err != nil {
			return nil, err
		}
		return convertJSON{pBaseJSON: b, SubnetID: c.SubnetID.String(), ChainID: c.ChainID.String(), Address: "0x" + hex.EncodeToString(c.Address),
			Validators: vals, SubnetAuth: auth}, nil

	case "RegisterL1ValidatorTx":
		r := tx.register
		b, err := paid(r.Balance)
		if err != nil {
			return nil, err
		}
		msg, err := w.fromManager(r.Message().Bytes(), w.l1SetAt(r.Time))
		if err != nil {
			return nil, err
		}
		return registerJSON{pBaseJSON: b, Balance: r.Balance, ProofOfPossession: byteArray(r.BLS.ProofOfPossession), Message: avax.EncodeHexNC(msg)}, nil

	case "SetL1ValidatorWeightTx":
		c := tx.l1
		b, err := paid(0)
		if err != nil {
			return nil, err
		}
		m := &warpmsg.L1ValidatorWeight{ValidationID: [32]byte(c.ValidationID), Nonce: c.Nonce, Weight: c.Weight}
		msg, err := w.fromManager(m.Bytes(), w.l1SetAt(c.Time))
		if err != nil {
			return nil, err
		}
		return setWeightJSON{pBaseJSON: b, Message: avax.EncodeHexNC(msg)}, nil

	case "IncreaseL1ValidatorBalanceTx":
		c := tx.l1
		b, err := paid(c.Balance)
		if err != nil {
			return nil, err
		}
		return increaseBalanceJSON{pBaseJSON: b, ValidationID: c.ValidationID.String(), Balance: c.Balance}, nil

	case "DisableL1ValidatorTx":
		c := tx.l1
		b, err := paid(0)
		if err != nil {
			return nil, err
		}
		return disableJSON{pBaseJSON: b, ValidationID: c.ValidationID.String(), DisableAuth: auth}, nil
	}
	return nil, fmt.Errorf("devnet: no P-Chain transaction of kind %s", tx.Kind)
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
