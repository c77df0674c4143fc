package avax

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
)

// AVM codec type ids (avalanchego vms/avm/txs/parser.go registers BaseTx,
// CreateAssetTx, OperationTx, ImportTx, ExportTx as 0..4; the secp256k1fx,
// nftfx and propertyfx register five types each as 5..19; then
// vms/avm/block/parser.go registers StandardBlock, the post-Cortina block).
const (
	TypeAVMBaseTx        uint32 = 0
	TypeAVMStandardBlock uint32 = 20
)

// SigLen is the length of a recoverable secp256k1 signature, r ‖ s ‖ v.
const SigLen = 65

// TransferableOutput is an output of an asset.
type TransferableOutput struct {
	AssetID ID
	Out     TransferOutput
}

// TransferableInput spends the UTXO (TxID, OutputIndex) of AssetID with a
// secp256k1fx.TransferInput.
type TransferableInput struct {
	TxID        ID
	OutputIndex uint32
	AssetID     ID
	Amount      uint64
	SigIndices  []uint32
}

// BaseTx is the AVM's BaseTx (type id 0): a plain transfer.
type BaseTx struct {
	NetworkID    uint32
	BlockchainID ID
	Outs         []TransferableOutput
	Ins          []TransferableInput
	Memo         []byte
}

// Sort puts outputs and inputs in the canonical order avalanchego verifies:
// outputs by asset then by their bytes, inputs by (TxID, OutputIndex).
func (tx *BaseTx) Sort() {
	slices.SortStableFunc(tx.Outs, func(a, b TransferableOutput) int {
		if c := bytes.Compare(a.AssetID[:], b.AssetID[:]); c != 0 {
			return c
		}
		var wa, wb Writer
		writeOutput(&wa, &a.Out)
		writeOutput(&wb, &b.Out)
		return bytes.Compare(wa.Bytes(), wb.Bytes())
	})
	slices.SortStableFunc(tx.Ins, func(a, b TransferableInput) int {
		if c := bytes.Compare(a.TxID[:], b.TxID[:]); c != 0 {
			return c
		}
		return cmp.Compare(a.OutputIndex, b.OutputIndex)
	})
}

func (tx *BaseTx) write(w *Writer) {
	w.U32(TypeAVMBaseTx)
	w.U32(tx.NetworkID)
	w.Fixed(tx.BlockchainID[:])
	w.U32(uint32(len(tx.Outs)))
	for i := range tx.Outs {
		o := &tx.Outs[i]
		w.Fixed(o.AssetID[:])
		writeOutput(w, &o.Out)
	}
	w.U32(uint32(len(tx.Ins)))
	for _, in := range tx.Ins {
		w.Fixed(in.TxID[:])
		w.U32(in.OutputIndex)
		w.Fixed(in.AssetID[:])
		w.U32(TypeSECP256K1TransferInput)
		w.U64(in.Amount)
		w.U32(uint32(len(in.SigIndices)))
		for _, s := range in.SigIndices {
			w.U32(s)
		}
	}
	w.Var(tx.Memo)
}

func (tx *BaseTx) read(r *Reader) {
	if t := r.U32(); r.Err() == nil && t != TypeAVMBaseTx {
		r.Fail(fmt.Errorf("%w: tx %d", ErrTypeID, t))
		return
	}
	tx.NetworkID = r.U32()
	r.Fixed(tx.BlockchainID[:])
	tx.Outs = make([]TransferableOutput, r.Len(32+4))
	for i := range tx.Outs {
		o := &tx.Outs[i]
		r.Fixed(o.AssetID[:])
		if out, ok := readOutput(r, false).(*TransferOutput); ok {
			o.Out = *out
		}
	}
	tx.Ins = make([]TransferableInput, r.Len(32+4+32+4))
	for i := range tx.Ins {
		in := &tx.Ins[i]
		r.Fixed(in.TxID[:])
		in.OutputIndex = r.U32()
		r.Fixed(in.AssetID[:])
		if t := r.U32(); r.Err() == nil && t != TypeSECP256K1TransferInput {
			r.Fail(fmt.Errorf("%w: input %d", ErrTypeID, t))
			return
		}
		in.Amount = r.U64()
		in.SigIndices = make([]uint32, r.Len(4))
		for j := range in.SigIndices {
			in.SigIndices[j] = r.U32()
		}
	}
	tx.Memo = r.Var()
}

// UnsignedBytes returns 0000 ‖ type id ‖ fields: the bytes that are signed
// (their sha256 is the signing hash).
func (tx *BaseTx) UnsignedBytes() []byte {
	var w Writer
	w.U16(CodecVersion)
	tx.write(&w)
	return w.Bytes()
}

// Tx is a signed AVM transaction: the unsigned BaseTx and one secp256k1fx
// credential (type id 9) per input, each holding SigLen-byte signatures.
type Tx struct {
	Unsigned BaseTx
	Creds    [][][SigLen]byte
}

func (tx *Tx) write(w *Writer) {
	tx.Unsigned.write(w)
	w.U32(uint32(len(tx.Creds)))
	for _, c := range tx.Creds {
		w.U32(TypeSECP256K1Credential)
		w.U32(uint32(len(c)))
		for _, s := range c {
			w.Fixed(s[:])
		}
	}
}

func (tx *Tx) read(r *Reader) {
	tx.Unsigned.read(r)
	tx.Creds = make([][][SigLen]byte, r.Len(8))
	for i := range tx.Creds {
		if t := r.U32(); r.Err() == nil && t != TypeSECP256K1Credential {
			r.Fail(fmt.Errorf("%w: credential %d", ErrTypeID, t))
			return
		}
		tx.Creds[i] = make([][SigLen]byte, r.Len(SigLen))
		for j := range tx.Creds[i] {
			r.Fixed(tx.Creds[i][j][:])
		}
	}
}

// Bytes returns the signed transaction: 0000 ‖ unsigned ‖ credentials.
func (tx *Tx) Bytes() []byte {
	var w Writer
	w.U16(CodecVersion)
	tx.write(&w)
	return w.Bytes()
}

// ID returns sha256(Bytes()).
func (tx *Tx) ID() ID { return Hash256(tx.Bytes()) }

// ParseTx decodes Tx.Bytes.
func ParseTx(b []byte) (*Tx, error) {
	r := NewReader(b)
	r.Version()
	tx := &Tx{}
	tx.read(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("tx: %w", err)
	}
	return tx, nil
}

// StandardBlock is the AVM's post-Cortina block (type id 20).
type StandardBlock struct {
	Parent ID
	Height uint64
	Time   uint64 // Unix seconds
	Root   ID     // merkle root; the zero id, as avalanchego leaves it
	Txs    []Tx
}

// Bytes returns 0000 ‖ u32 20 ‖ parent ‖ height ‖ time ‖ root ‖ txs.
func (b *StandardBlock) Bytes() []byte {
	var w Writer
	w.U16(CodecVersion)
	w.U32(TypeAVMStandardBlock)
	w.Fixed(b.Parent[:])
	w.U64(b.Height)
	w.U64(b.Time)
	w.Fixed(b.Root[:])
	w.U32(uint32(len(b.Txs)))
	for i := range b.Txs {
		b.Txs[i].write(&w)
	}
	return w.Bytes()
}

// ID returns sha256(Bytes()).
func (b *StandardBlock) ID() ID { return Hash256(b.Bytes()) }

// ParseStandardBlock decodes StandardBlock.Bytes.
func ParseStandardBlock(data []byte) (*StandardBlock, error) {
	r := NewReader(data)
	r.Version()
	if t := r.U32(); r.Err() == nil && t != TypeAVMStandardBlock {
		r.Fail(fmt.Errorf("%w: block %d", ErrTypeID, t))
	}
	b := &StandardBlock{}
	r.Fixed(b.Parent[:])
	b.Height = r.U64()
	b.Time = r.U64()
	r.Fixed(b.Root[:])
	b.Txs = make([]Tx, r.Len(4+4+32+4+4+4+4))
	for i := range b.Txs {
		b.Txs[i].read(r)
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("block: %w", err)
	}
	return b, nil
}

// Vertex is a pre-Cortina X-chain vertex (avalanchego
// snow/engine/avalanche/vertex): the chain, a height, an epoch, parent
// vertex ids and transaction bytes.
type Vertex struct {
	ChainID ID
	Height  uint64
	Epoch   uint32
	Parents []ID
	Txs     [][]byte
}

// Bytes returns 0000 ‖ chainID ‖ height ‖ epoch ‖ parents ‖ txs.
func (v *Vertex) Bytes() []byte {
	var w Writer
	w.U16(CodecVersion)
	w.Fixed(v.ChainID[:])
	w.U64(v.Height)
	w.U32(v.Epoch)
	w.U32(uint32(len(v.Parents)))
	for _, p := range v.Parents {
		w.Fixed(p[:])
	}
	w.U32(uint32(len(v.Txs)))
	for _, t := range v.Txs {
		w.Var(t)
	}
	return w.Bytes()
}

// ID returns sha256(Bytes()).
func (v *Vertex) ID() ID { return Hash256(v.Bytes()) }

// ParseVertex decodes Vertex.Bytes.
func ParseVertex(data []byte) (*Vertex, error) {
	r := NewReader(data)
	r.Version()
	v := &Vertex{}
	r.Fixed(v.ChainID[:])
	v.Height = r.U64()
	v.Epoch = r.U32()
	v.Parents = make([]ID, r.Len(32))
	for i := range v.Parents {
		r.Fixed(v.Parents[i][:])
	}
	v.Txs = make([][]byte, r.Len(4))
	for i := range v.Txs {
		v.Txs[i] = r.Var()
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("vertex: %w", err)
	}
	return v, nil
}
