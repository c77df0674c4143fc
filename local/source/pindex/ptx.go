package pindex

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// applyP stores what a P-Chain transaction adds beyond its UTXOs: subnets
// and their owners, chains, L1 conversions, stakes and their ends. next is
// the first output index after the tx's own outputs (where stake outputs
// begin).
func (w *writer) applyP(typ, id string, txID avax.ID, u *unsignedJSON, next uint32) error {
	switch typ {
	case TxCreateSubnet:
		if err := w.exec(`INSERT INTO subnets (id, tx, height, time) VALUES (?,?,?,?)`, id, id, w.height, w.time); err != nil {
			return err
		}
		return w.owner(id, id, u.Owner)
	case TxTransferSubnetOwnership:
		return w.owner(u.SubnetID, id, u.NewOwner)
	case TxCreateChain:
		return w.exec(`INSERT INTO blockchains (id, subnet, name, vm, genesis, height, time) VALUES (?,?,?,?,?,?,?)`,
			id, u.SubnetID, u.ChainName, u.VMID, u.GenesisData, w.height, w.time)
	case TxConvertSubnetToL1:
		if err := w.exec(`INSERT INTO conversions (subnet, tx, chain_id, address, height, time) VALUES (?,?,?,?,?,?)`,
			u.SubnetID, id, u.ChainID, u.Address, w.height, w.time); err != nil {
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
			owner, err := pchainOwnerRow(v.RemainingBalanceOwner)
			if err != nil {
				return err
			}
			vid := subnet.Append(uint32(i))
			if err := w.stake(id, i, stakeL1Validator, node, u.SubnetID, v.Weight, w.time, 0, 0, owner,
				v.Signer.PublicKey, v.Signer.ProofOfPossession, vid.String(), v.Balance); err != nil {
				return err
			}
		}
	case TxRegisterL1Validator:
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
		owner, err := ownerRow(&ownerJSON{Threshold: reg.RemainingBalanceOwner.Threshold, Addresses: formatAddrs(reg.RemainingBalanceOwner.Addresses)})
		if err != nil {
			return err
		}
		pop := make([]byte, len(u.PoP))
		for i, b := range u.PoP {
			pop[i] = byte(b)
		}
		return w.stake(id, 0, stakeL1Validator, node, hexID(reg.SubnetID), reg.Weight, w.time, 0, 0, owner,
			"0x"+hex.EncodeToString(reg.BLSPublicKey[:]), "0x"+hex.EncodeToString(pop), hexID(reg.ValidationID()), deref(u.Balance))
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
		var stake string
		err := w.tx.QueryRow(`SELECT tx FROM stakes WHERE node=? AND subnet=? AND kind=? ORDER BY height DESC LIMIT 1`,
			u.NodeID, u.SubnetID, stakeSubnetValidator).Scan(&stake)
		if err != nil {
			return fmt.Errorf("RemoveSubnetValidatorTx of %s on %s: no AddSubnetValidatorTx indexed: %w", u.NodeID, u.SubnetID, err)
		}
		return w.end(stake, id, "removed")
	case TxAddValidator, TxAddPermissionlessVal, TxAddDelegator, TxAddPermissionlessDel, TxAddSubnetValidator:
		return w.staker(typ, id, txID, u, next)
	}
	return nil
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
	ownerStr, err := ownerRow(owner)
	if err != nil {
		return err
	}
	var key, pop string
	if u.Signer != nil {
		key, pop = u.Signer.PublicKey, u.Signer.ProofOfPossession
	}
	if err := w.stake(id, 0, kind, node, subnet, v.Weight, start, int64(v.End), deref(u.Shares), ownerStr, key, pop, "", 0); err != nil {
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

func (w *writer) stake(tx string, seq int, kind string, node avax.NodeID, subnet string, weight uint64, start, end int64, fee uint32,
	owner, blsKey, blsPoP, validationID string, balance uint64) error {
	return w.exec(`INSERT INTO stakes (tx, seq, kind, node, subnet, weight, start, end, fee, reward_owner, bls_key, bls_pop, validation_id, balance, height, time)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, tx, seq, kind, node.String(), subnet, int64(weight), start, end, fee, owner, blsKey, blsPoP,
		validationID, int64(balance), w.height, w.time)
}

// end records that the stake (a staking tx id, or an L1 validation id) ended
// by tx.
func (w *writer) end(stake, tx, kind string) error {
	return w.exec(`INSERT OR REPLACE INTO stake_ends (stake, tx, kind, height, time) VALUES (?,?,?,?,?)`, stake, tx, kind, w.height, w.time)
}

// paidUTXO stores a UTXO the transaction by makes without listing it.
func (w *writer) paidUTXO(by string, p Paid) error {
	u := &p.UTXO
	owners := u.Out.Owners()
	id := u.ID().String()
	var lock uint64
	if l, ok := u.Out.(*avax.StakeableLockOut); ok {
		lock = l.Locktime
	}
	if err := w.exec(`INSERT INTO utxos (id, chain, created_on, height, time, tx, output_index, asset, amount, locktime, threshold, addresses,
		stake_locktime, staked, stake_start, stake_end, bytes, reward, emitted_by) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		id, string(w.chain), string(w.chain), w.height, w.time, u.TxID.String(), u.OutputIndex, u.AssetID.String(), strconv.FormatUint(u.Out.Amount(), 10),
		owners.Locktime, owners.Threshold, joinAddrs(owners.Addrs), lock, false, 0, 0, u.Bytes(), p.Reward, by); err != nil {
		return err
	}
	// The paying transaction may be in an earlier block (a reward's
	// RewardValidatorTx is in the proposal block before its option block).
	var height uint64
	var idx int
	if err := w.tx.QueryRow(`SELECT height, idx FROM txs WHERE id=? AND chain=?`, by, string(w.chain)).Scan(&height, &idx); err != nil {
		return fmt.Errorf("the paying tx %s: %w", by, err)
	}
	return w.owned(id, w.chain, owners.Addrs, by, height, idx)
}

// owner records a subnet's (new) owner.
func (w *writer) owner(subnet, tx string, o *ownerJSON) error {
	if o == nil {
		return fmt.Errorf("subnet %s: no owner", subnet)
	}
	addrs, err := ownerRow(o)
	if err != nil {
		return err
	}
	return w.exec(`INSERT INTO subnet_owners (subnet, height, tx, locktime, threshold, addresses) VALUES (?,?,?,?,?,?)`,
		subnet, w.height, tx, o.Locktime, o.Threshold, addrs)
}

// formatAddrs renders raw 20-byte addresses for ownerRow.
func formatAddrs(in [][20]byte) []string {
	out := make([]string, len(in))
	for i, a := range in {
		out[i] = avax.FormatAddress("P", "local", avax.ShortID(a))
	}
	return out
}
