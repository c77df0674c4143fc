package pindex

import (
	"encoding/hex"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// applyP stores what a P-avanet.Chain transaction adds beyond its UTXOs: subnets
// and their owners, chains, L1 conversions, stakes and their ends. next is
// the first output index after the tx's own outputs (where stake outputs
// begin).
func (w *writer) applyP(typ, id string, txID avax.ID, u *unsignedJSON, next uint32) error {
	switch typ {
	case TxCreateSubnet:
		if err := w.b.Subnet(id, w.height, w.time); err != nil {
			return err
		}
		return w.owner(id, id, u.Owner)
	case TxTransferSubnetOwnership:
		return w.owner(u.SubnetID, id, u.NewOwner)
	case TxCreateChain:
		return w.b.Blockchain(&Blockchain{ID: id, SubnetID: u.SubnetID, Name: u.ChainName, VMID: u.VMID, Genesis: u.GenesisData,
			Height: w.height, Time: w.time})
	case TxConvertSubnetToL1:
		return w.convert(id, u)
	case TxRegisterL1Validator:
		return w.registerL1(id, u)
	case TxSetL1ValidatorWeight:
		m, err := l1Message(u.Message)
		if err != nil {
			return err
		}
		if wm, ok := m.(*warpmsg.L1ValidatorWeight); ok && wm.Weight == 0 {
			return w.end(hexID(wm.ValidationID), id, "removed")
		}
	case TxDisableL1Validator:
		return w.end(u.ValidationID, id, "disabled")
	case TxRewardValidator:
		return w.end(u.TxID, id, "completed")
	case TxRemoveSubnetValidator:
		stake, err := w.b.LastStake(u.NodeID, u.SubnetID, stakeSubnetValidator)
		if err != nil {
			return fmt.Errorf("RemoveSubnetValidatorTx of %s on %s: no AddSubnetValidatorTx indexed: %w", u.NodeID, u.SubnetID, err)
		}
		return w.end(stake, id, "removed")
	case TxAddValidator, TxAddPermissionlessVal, TxAddDelegator, TxAddPermissionlessDel, TxAddSubnetValidator:
		return w.staker(typ, id, txID, u, next)
	}
	return nil
}

// convert stores a ConvertSubnetToL1Tx and the L1 validators it made.
func (w *writer) convert(id string, u *unsignedJSON) error {
	if err := w.b.Conversion(u.SubnetID, &Conversion{TxID: id, ChainID: u.ChainID, Address: u.Address, Height: w.height, Time: w.time}); err != nil {
		return err
	}
	subnet, err := parseID(u.SubnetID)
	if err != nil {
		return err
	}
	for i, v := range u.Validators {
		node, err := parseNodeID(v.NodeID)
		if err != nil {
			return err
		}
		// A PChainOwner: no locktime.
		owner, err := parseAddrs(v.RemainingBalanceOwner.Addresses)
		if err != nil {
			return err
		}
		vid := subnet.Append(uint32(i))
		if err := w.b.Stake(&Stake{TxID: id, Seq: i, Kind: stakeL1Validator, NodeID: node, SubnetID: u.SubnetID, Weight: v.Weight,
			Start: w.time, RewardOwner: owner, BLSKey: v.Signer.PublicKey, BLSPoP: v.Signer.ProofOfPossession, ValidationID: vid.String(),
			Balance: v.Balance, Height: w.height, Time: w.time}); err != nil {
			return err
		}
	}
	return nil
}

// registerL1 stores the L1 validator a RegisterL1ValidatorTx's message
// registered.
func (w *writer) registerL1(id string, u *unsignedJSON) error {
	m, err := l1Message(u.Message)
	if err != nil {
		return err
	}
	reg, ok := m.(*warpmsg.RegisterL1Validator)
	if !ok {
		return fmt.Errorf("RegisterL1ValidatorTx carries a %T", m)
	}
	var node avax.NodeID
	copy(node[:], reg.NodeID)
	owner, err := parseAddrs(formatAddrs(reg.RemainingBalanceOwner.Addresses))
	if err != nil {
		return err
	}
	pop := make([]byte, len(u.PoP))
	for i, b := range u.PoP {
		pop[i] = byte(b)
	}
	return w.b.Stake(&Stake{TxID: id, Kind: stakeL1Validator, NodeID: node, SubnetID: hexID(reg.SubnetID), Weight: reg.Weight, Start: w.time,
		RewardOwner: owner, BLSKey: "0x" + hex.EncodeToString(reg.BLSPublicKey[:]), BLSPoP: "0x" + hex.EncodeToString(pop),
		ValidationID: hexID(reg.ValidationID()), Balance: deref(u.Balance), Height: w.height, Time: w.time})
}

// staker stores a staking transaction and its stake outputs.
func (w *writer) staker(typ, id string, txID avax.ID, u *unsignedJSON, next uint32) error {
	v := u.Validator
	if v == nil {
		return fmt.Errorf("%s without a validator", typ)
	}
	node, err := avax.ParseNodeID(v.NodeID)
	if err != nil {
		return err
	}
	subnet := u.SubnetID
	if subnet == "" {
		subnet = v.SubnetID
	}
	if subnet == "" {
		subnet = avax.EmptyID.String()
	}
	// Since Durango a staker starts when its tx is accepted; before, at its
	// start time.
	start := max(int64(v.Start), w.time)
	kind, owner := stakeValidator, u.ValidationOwner
	switch typ {
	case TxAddValidator:
		owner = u.RewardsOwner
	case TxAddDelegator, TxAddPermissionlessDel:
		kind, owner = stakeDelegator, u.RewardsOwner
	case TxAddSubnetValidator:
		kind = stakeSubnetValidator
	}
	if kind != stakeDelegator && subnet != avax.EmptyID.String() {
		kind = stakeSubnetValidator
	}
	ownerAddrs, err := ownerAddrs(owner)
	if err != nil {
		return err
	}
	var key, pop string
	if u.Signer != nil {
		key, pop = u.Signer.PublicKey, u.Signer.ProofOfPossession
	}
	if err := w.b.Stake(&Stake{TxID: id, Kind: kind, NodeID: node, SubnetID: subnet, Weight: v.Weight, Start: start, End: int64(v.End),
		Fee: deref(u.Shares), RewardOwner: ownerAddrs, BLSKey: key, BLSPoP: pop, Height: w.height, Time: w.time}); err != nil {
		return err
	}
	for _, o := range u.Stake {
		if err := w.output(txID, next, o.AssetID, &o.Output, avanet.ChainP, &stakeWindow{start: start, end: int64(v.End)}); err != nil {
			return err
		}
		next++
	}
	return nil
}

// end records that the stake (a staking tx id, or an L1 validation id) ended
// by tx.
func (w *writer) end(stake, tx, kind string) error {
	return w.b.StakeEnd(stake, tx, kind, w.height, w.time)
}

// paidUTXO stores a UTXO the transaction by makes without listing it.
func (w *writer) paidUTXO(by string, p Paid) error {
	u := &p.UTXO
	owners := u.Out.Owners()
	var lock uint64
	if l, ok := u.Out.(*avax.StakeableLockOut); ok {
		lock = l.Locktime
	}
	return w.b.Paid(&UTXO{ID: u.ID().String(), Chain: w.chain, CreatedOn: w.chain, Height: w.height, Time: w.time, TxID: u.TxID.String(),
		OutputIndex: u.OutputIndex, AssetID: u.AssetID.String(), Amount: u.Out.Amount(), Locktime: owners.Locktime, Threshold: owners.Threshold,
		Addresses: owners.Addrs, StakeLocktime: lock, Bytes: u.Bytes(), Reward: p.Reward, EmittedBy: by})
}

// owner records a subnet's (new) owner.
func (w *writer) owner(subnet, tx string, o *ownerJSON) error {
	if o == nil {
		return fmt.Errorf("subnet %s: no owner", subnet)
	}
	addrs, err := ownerAddrs(o)
	if err != nil {
		return err
	}
	return w.b.SubnetOwner(subnet, tx, w.height, &Owner{Locktime: o.Locktime, Threshold: o.Threshold, Addresses: addrs})
}

// formatAddrs renders raw 20-byte addresses as a PChainOwner's, which
// parseAddrs reads back sorted.
func formatAddrs(in [][20]byte) []string {
	out := make([]string, len(in))
	for i, a := range in {
		out[i] = avax.FormatAddress("P", "local", avax.ShortID(a))
	}
	return out
}
