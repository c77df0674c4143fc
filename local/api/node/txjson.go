package node

import (
	"github.com/avaedge/avaedge/local/avax"
)

// The json encoding of X-Chain transactions and blocks: the field names and
// order of avalanchego's txs.Tx and block.StandardBlock after txInit (fx
// ids filled in, addresses printed "X-<hrp>1..."). Amounts and heights are
// plain JSON numbers here, as encoding/json writes them on the node.

type jsonTx struct {
	Unsigned    jsonBaseTx       `json:"unsignedTx"`
	Credentials []jsonCredential `json:"credentials"`
	ID          string           `json:"id"`
}

type jsonBaseTx struct {
	NetworkID    uint32       `json:"networkID"`
	BlockchainID string       `json:"blockchainID"`
	Outputs      []jsonOutput `json:"outputs"`
	Inputs       []jsonInput  `json:"inputs"`
	Memo         *string      `json:"memo"`
}

type jsonOutput struct {
	AssetID string             `json:"assetID"`
	FxID    string             `json:"fxID"`
	Output  jsonTransferOutput `json:"output"`
}

// jsonTransferOutput mirrors secp256k1fx.TransferOutput.MarshalJSON, a map
// and so written with sorted keys.
type jsonTransferOutput struct {
	Addresses []string `json:"addresses"`
	Amount    uint64   `json:"amount"`
	Locktime  uint64   `json:"locktime"`
	Threshold uint32   `json:"threshold"`
}

type jsonInput struct {
	TxID        string            `json:"txID"`
	OutputIndex uint32            `json:"outputIndex"`
	AssetID     string            `json:"assetID"`
	FxID        string            `json:"fxID"`
	Input       jsonTransferInput `json:"input"`
}

type jsonTransferInput struct {
	Amount           uint64   `json:"amount"`
	SignatureIndices []uint32 `json:"signatureIndices"`
}

type jsonCredential struct {
	FxID       string `json:"fxID"`
	Credential struct {
		Signatures []string `json:"signatures"`
	} `json:"credential"`
}

type jsonBlock struct {
	ParentID   string   `json:"parentID"`
	Height     uint64   `json:"height"`
	Time       uint64   `json:"time"`
	MerkleRoot string   `json:"merkleRoot"`
	Txs        []jsonTx `json:"txs"`
	ID         string   `json:"id"`
}

func (s *service) txJSON(tx *avax.Tx, id avax.ID) jsonTx {
	u := &tx.Unsigned
	fx := secp256k1fxID.String()
	out := jsonTx{
		Unsigned: jsonBaseTx{
			NetworkID:    u.NetworkID,
			BlockchainID: u.BlockchainID.String(),
			Outputs:      make([]jsonOutput, len(u.Outs)),
			Inputs:       make([]jsonInput, len(u.Ins)),
		},
		Credentials: make([]jsonCredential, len(tx.Creds)),
		ID:          id.String(),
	}
	if u.Memo != nil {
		m := avax.EncodeHexNC(u.Memo)
		out.Unsigned.Memo = &m
	}
	for i, o := range u.Outs {
		addrs := make([]string, len(o.Out.Addrs))
		for j, a := range o.Out.Addrs {
			addrs[j] = s.formatAddress(a)
		}
		out.Unsigned.Outputs[i] = jsonOutput{AssetID: o.AssetID.String(), FxID: fx, Output: jsonTransferOutput{
			Addresses: addrs, Amount: o.Out.Amt, Locktime: o.Out.Locktime, Threshold: o.Out.Threshold,
		}}
	}
	for i, in := range u.Ins {
		sigs := in.SigIndices
		if sigs == nil {
			sigs = []uint32{}
		}
		out.Unsigned.Inputs[i] = jsonInput{TxID: in.TxID.String(), OutputIndex: in.OutputIndex, AssetID: in.AssetID.String(),
			FxID: fx, Input: jsonTransferInput{Amount: in.Amount, SignatureIndices: sigs}}
	}
	for i, c := range tx.Creds {
		cred := &out.Credentials[i]
		cred.FxID = fx
		cred.Credential.Signatures = make([]string, len(c))
		for j, sig := range c {
			cred.Credential.Signatures[j] = avax.EncodeHexNC(sig[:])
		}
	}
	return out
}

func (s *service) blockJSON(b *avax.StandardBlock, id avax.ID) jsonBlock {
	out := jsonBlock{
		ParentID:   b.Parent.String(),
		Height:     b.Height,
		Time:       b.Time,
		MerkleRoot: b.Root.String(),
		Txs:        make([]jsonTx, len(b.Txs)),
		ID:         id.String(),
	}
	for i := range b.Txs {
		tx := &b.Txs[i]
		out.Txs[i] = s.txJSON(tx, tx.ID())
	}
	return out
}
