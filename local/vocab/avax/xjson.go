package avax

// The json encoding of X-Chain transactions and blocks: the field names and
// order of avalanchego's txs.Tx and block.StandardBlock after the avm's
// txInit (fx ids filled in, addresses printed "<chain>-<hrp>1..."). Amounts
// and heights are plain JSON numbers, as encoding/json writes them on the
// node. The devnet stores this JSON of its transactions in its index, and
// the node methods print it for transactions whose bytes they parse.

// SECP256K1FxID is the id of the secp256k1fx: its name, zero-padded to 32
// bytes, as avalanchego's fx ids are.
var SECP256K1FxID = func() ID {
	var id ID
	copy(id[:], "secp256k1fx")
	return id
}()

type jsonTx struct {
	Unsigned    any              `json:"unsignedTx"`
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

type jsonCreateAssetTx struct {
	jsonBaseTx
	Name          string             `json:"name"`
	Symbol        string             `json:"symbol"`
	Denomination  uint8              `json:"denomination"`
	InitialStates []jsonInitialState `json:"initialStates"`
}

type jsonInitialState struct {
	FxIndex uint32               `json:"fxIndex"`
	FxID    string               `json:"fxID"`
	Outputs []jsonTransferOutput `json:"outputs"`
}

type jsonImportTx struct {
	jsonBaseTx
	SourceChain    string      `json:"sourceChain"`
	ImportedInputs []jsonInput `json:"importedInputs"`
}

type jsonExportTx struct {
	jsonBaseTx
	DestinationChain string       `json:"destinationChain"`
	ExportedOutputs  []jsonOutput `json:"exportedOutputs"`
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

// XJSON prints X-Chain transactions and blocks for one chain alias and
// network: Alias and HRP make the addresses ("X", "local" print
// "X-local1...").
type XJSON struct {
	Alias, HRP string
}

func (x XJSON) outputs(outs []TransferableOutput) []jsonOutput {
	out := make([]jsonOutput, len(outs))
	for i, o := range outs {
		out[i] = jsonOutput{AssetID: o.AssetID.String(), FxID: SECP256K1FxID.String(), Output: x.transferOutput(&o.Out)}
	}
	return out
}

func (x XJSON) transferOutput(o *TransferOutput) jsonTransferOutput {
	addrs := make([]string, len(o.Addrs))
	for j, a := range o.Addrs {
		addrs[j] = FormatAddress(x.Alias, x.HRP, a)
	}
	return jsonTransferOutput{Addresses: addrs, Amount: o.Amt, Locktime: o.Locktime, Threshold: o.Threshold}
}

func inputs(ins []TransferableInput) []jsonInput {
	out := make([]jsonInput, len(ins))
	for i, in := range ins {
		sigs := in.SigIndices
		if sigs == nil {
			sigs = []uint32{}
		}
		out[i] = jsonInput{TxID: in.TxID.String(), OutputIndex: in.OutputIndex, AssetID: in.AssetID.String(),
			FxID: SECP256K1FxID.String(), Input: jsonTransferInput{Amount: in.Amount, SignatureIndices: sigs}}
	}
	return out
}

// Tx returns the JSON form of tx, whose id is id, for encoding/json.
func (x XJSON) Tx(tx *Tx, id ID) any { return x.tx(tx, id) }

func (x XJSON) tx(tx *Tx, id ID) jsonTx {
	u := &tx.Unsigned
	base := jsonBaseTx{NetworkID: u.NetworkID, BlockchainID: u.BlockchainID.String(), Outputs: x.outputs(u.Outs), Inputs: inputs(u.Ins)}
	if u.Memo != nil {
		m := EncodeHexNC(u.Memo)
		base.Memo = &m
	}
	out := jsonTx{Unsigned: base, Credentials: make([]jsonCredential, len(tx.Creds)), ID: id.String()}
	switch {
	case u.Asset != nil:
		holders := make([]jsonTransferOutput, len(u.Asset.Holders))
		for i := range u.Asset.Holders {
			holders[i] = x.transferOutput(&u.Asset.Holders[i])
		}
		out.Unsigned = jsonCreateAssetTx{jsonBaseTx: base, Name: u.Asset.Name, Symbol: u.Asset.Symbol, Denomination: u.Asset.Denomination,
			InitialStates: []jsonInitialState{{FxIndex: 0, FxID: SECP256K1FxID.String(), Outputs: holders}}}
	case u.Import != nil:
		out.Unsigned = jsonImportTx{jsonBaseTx: base, SourceChain: u.Import.SourceChain.String(), ImportedInputs: inputs(u.Import.Ins)}
	case u.Export != nil:
		out.Unsigned = jsonExportTx{jsonBaseTx: base, DestinationChain: u.Export.DestinationChain.String(), ExportedOutputs: x.outputs(u.Export.Outs)}
	}
	for i, c := range tx.Creds {
		cred := &out.Credentials[i]
		cred.FxID = SECP256K1FxID.String()
		cred.Credential.Signatures = make([]string, len(c))
		for j, sig := range c {
			cred.Credential.Signatures[j] = EncodeHexNC(sig[:])
		}
	}
	return out
}

// Block returns the JSON form of b, whose id is id, for encoding/json.
func (x XJSON) Block(b *StandardBlock, id ID) any {
	out := jsonBlock{ParentID: b.Parent.String(), Height: b.Height, Time: b.Time, MerkleRoot: b.Root.String(),
		Txs: make([]jsonTx, len(b.Txs)), ID: id.String()}
	for i := range b.Txs {
		tx := &b.Txs[i]
		out.Txs[i] = x.tx(tx, tx.ID())
	}
	return out
}
