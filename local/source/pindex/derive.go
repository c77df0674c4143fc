package pindex

import (
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// What a transaction adds to the lookup tables beyond its own rows: the
// assets an X-avanet.Chain transaction moved (asset_txs, which listAssetTransactions
// reads in block order) and the L1 validations a P-avanet.Chain transaction made or
// changed, with the balance it gave each (l1_txs, for the transactions list's
// l1ValidationId filter and the L1 validators' fees). The write path derives
// them from each transaction's JSON; a store written before they existed is
// derived once, at open, from the transactions it holds (schemaVersion).

// derive stores the lookup rows of transaction id, of type typ, at position
// idx of the block being applied.
func (w *writer) derive(typ, id string, idx int, u *unsignedJSON) error {
	if w.chain == avanet.ChainX {
		for _, asset := range movedAssets(typ, id, u) {
			if err := w.b.AssetTx(asset, w.height, idx, id); err != nil {
				return err
			}
		}
		return nil
	}
	changes, err := l1Changes(typ, u)
	if err != nil {
		return err
	}
	for _, c := range changes {
		if err := w.b.L1Tx(c.validationID, id, c.balance, w.height); err != nil {
			return err
		}
	}
	return nil
}

// movedAssets are the assets an X-avanet.Chain transaction spent or made, in the
// order they first appear; a CreateAssetTx's own asset first.
func movedAssets(typ, id string, u *unsignedJSON) []string {
	var out []string
	add := func(a string) {
		for _, x := range out {
			if x == a {
				return
			}
		}
		out = append(out, a)
	}
	if typ == TxCreateAsset {
		add(id)
	}
	for _, ins := range [][]transferableInJSON{u.Inputs, u.ImportedInputs} {
		for _, in := range ins {
			add(in.AssetID)
		}
	}
	for _, outs := range [][]transferableOutJSON{u.Outputs, u.ExportedOutputs} {
		for _, o := range outs {
			add(o.AssetID)
		}
	}
	for _, op := range u.Operations {
		add(op.AssetID)
	}
	return out
}

// l1Change is an L1 validation a transaction made or changed, and the
// balance it gave it.
type l1Change struct {
	validationID string
	balance      uint64
}

// l1Changes are the L1 validations a P-avanet.Chain transaction of type typ made
// or changed.
func l1Changes(typ string, u *unsignedJSON) ([]l1Change, error) {
	switch typ {
	case TxConvertSubnetToL1:
		subnet, err := parseID(u.SubnetID)
		if err != nil {
			return nil, err
		}
		out := make([]l1Change, len(u.Validators))
		for i, v := range u.Validators {
			out[i] = l1Change{subnet.Append(uint32(i)).String(), v.Balance}
		}
		return out, nil
	case TxRegisterL1Validator, TxSetL1ValidatorWeight:
		m, err := l1Message(u.Message)
		if err != nil {
			return nil, err
		}
		switch m := m.(type) {
		case *warpmsg.RegisterL1Validator:
			return []l1Change{{hexID(m.ValidationID()), deref(u.Balance)}}, nil
		case *warpmsg.L1ValidatorWeight:
			return []l1Change{{hexID(m.ValidationID), 0}}, nil
		}
		return nil, fmt.Errorf("%s carries a %T", typ, m)
	case TxIncreaseL1ValidatorBalance:
		return []l1Change{{u.ValidationID, deref(u.Balance)}}, nil
	case TxDisableL1Validator:
		return []l1Change{{u.ValidationID, 0}}, nil
	}
	return nil, nil
}

// assetKind reads a CreateAssetTx's initial states: its cap is variable when
// some output is a minter (no amount), its type nft when some output is an
// nftfx one (a group id).
func assetKind(u *unsignedJSON) (capKind, assetType string) {
	capKind, assetType = "fixed", "secp256k1"
	for _, st := range u.InitialStates {
		for _, o := range st.Outputs {
			if o.GroupID != nil {
				assetType = "nft"
			}
			if o.Amount == nil && o.Output == nil {
				capKind = "variable"
			}
		}
	}
	return capKind, assetType
}
