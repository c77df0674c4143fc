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
	TypeAVMCreateAssetTx uint32 = 1
	TypeAVMImportTx      uint32 = 3
	TypeAVMExportTx      uint32 = 4
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

// BaseTx is the AVM's BaseTx (type id 0): a plain transfer. With one of
// Asset, Import or Export set it is the transaction type that extends a
// BaseTx with those fields: a CreateAssetTx, an ImportTx or an ExportTx.
type BaseTx struct {
	NetworkID    uint32
	BlockchainID ID
	Outs         []TransferableOutput
	Ins          []TransferableInput
	Memo         []byte

	Asset  *CreateAsset
	Import *Import
	Export *Export
}

// CreateAsset is what a CreateAssetTx (type id 1) adds: the asset's
// description and its initial holders, secp256k1fx transfer outputs (fx
// index 0) of the new asset.
type CreateAsset struct {
	Name         string
	Symbol       string
	Denomination uint8
	Holders      []TransferOutput
}

// Import is what an ImportTx (type id 3) adds: inputs that spend UTXOs
// another chain exported to this one.
type Import struct {
	SourceChain ID
	Ins         []TransferableInput
}

// Export is what an ExportTx (type id 4) adds: outputs put into the shared
// memory of another chain.
type Export struct {
	DestinationChain ID
	Outs             []TransferableOutput
}

// TypeID returns the transaction's codec type id.
func (tx *BaseTx) TypeID() uint32 {
	switch {
	case tx.Asset != nil:
		return TypeAVMCreateAssetTx
	case tx.Import != nil:
		return TypeAVMImportTx
	case tx.Export != nil:
		return TypeAVMExportTx
	}
	return TypeAVMBaseTx
}

// Inputs returns every input the transaction spends, in the order its
// credentials sign them: its own, then the imported ones.
func (tx *BaseTx) Inputs() []TransferableInput {
	if tx.Import == nil {
		return tx.Ins
	}
	return append(slices.Clip(tx.Ins), tx.Import.Ins...)
}

// Sort puts outputs and inputs in the canonical order avalanchego verifies:
// outputs by asset then by their bytes, inputs by (TxID, OutputIndex); the
// imported inputs, exported outputs and initial holders likewise.
func (tx *BaseTx) Sort() {
	sortOuts(tx.Outs)
	sortIns(tx.Ins)
	if tx.Import != nil {
		sortIns(tx.Import.Ins)
	}
	if tx.Export != nil {
		sortOuts(tx.Export.Outs)
	}
	if tx.Asset != nil {
		slices.SortStableFunc(tx.Asset.Holders, func(a, b TransferOutput) int {
			var wa, wb Writer
			writeOutput(&wa, &a)
			writeOutput(&wb, &b)
			return bytes.Compare(wa.Bytes(), wb.Bytes())
		})
	}
}

func sortOuts(outs []TransferableOutput) {
	slices.SortStableFunc(outs, func(a, b TransferableOutput) int {
		if c := bytes.Compare(a.AssetID[:], b.AssetID[:]); c != 0 {
			return c
		}
		var wa, wb Writer
		writeOutput(&wa, &a.Out)
		writeOutput(&wb, &b.Out)
		return bytes.Compare(wa.Bytes(), wb.Bytes())
	})
}

func sortIns(ins []TransferableInput) {
	slices.SortStableFunc(ins, func(a, b TransferableInput) int {
		if c := bytes.Compare(a.TxID[:], b.TxID[:]); c != 0 {
			return c
		}
		return cmp.Compare(a.OutputIndex, b.OutputIndex)
	})
}

func writeOuts(w *Writer, outs []TransferableOutput) {
	w.U32(uint32(len(outs)))
	for i := range outs {
		o := &outs[i]
		w.Fixed(o.AssetID[:])
		writeOutput(w, &o.Out)
	}
}

func writeIns(w *Writer, ins []TransferableInput) {
	w.U32(uint32(len(ins)))
	for _, in := range ins {
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
}

// writeString writes a u16-length-prefixed string, the codec's string.
func writeString(w *Writer, s string) {
	w.U16(uint16(len(s)))
	w.Fixed([]byte(s))
}

func (tx *BaseTx) write(w *Writer) {
	w.U32(tx.TypeID())
	w.U32(tx.NetworkID)
	w.Fixed(tx.BlockchainID[:])
	writeOuts(w, tx.Outs)
	writeIns(w, tx.Ins)
	w.Var(tx.Memo)
	switch {
	case tx.Asset != nil:
		a := tx.Asset
		writeString(w, a.Name)
		writeString(w, a.Symbol)
		w.U8(a.Denomination)
		w.U32(1) // one initial state: the secp256k1fx's
		w.U32(0)
		w.U32(uint32(len(a.Holders)))
		for i := range a.Holders {
			writeOutput(w, &a.Holders[i])
		}
	case tx.Import != nil:
		w.Fixed(tx.Import.SourceChain[:])
		writeIns(w, tx.Import.Ins)
	case tx.Export != nil:
		w.Fixed(tx.Export.DestinationChain[:])
		writeOuts(w, tx.Export.Outs)
	}
}

func readOuts(r *Reader) []TransferableOutput {
	outs := make([]TransferableOutput, r.Len(32+4))
	for i := range outs {
		o := &outs[i]
		r.Fixed(o.AssetID[:])
		if out, ok := readOutput(r, false).(*TransferOutput); ok {
			o.Out = *out
		}
	}
	return outs
}

func readIns(r *Reader) []TransferableInput {
	ins := make([]TransferableInput, r.Len(32+4+32+4))
	for i := range ins {
		in := &ins[i]
		r.Fixed(in.TxID[:])
		in.OutputIndex = r.U32()
		r.Fixed(in.AssetID[:])
		if t := r.U32(); r.Err() == nil && t != TypeSECP256K1TransferInput {
			r.Fail(fmt.Errorf("%w: input %d", ErrTypeID, t))
			return nil
		}
		in.Amount = r.U64()
		in.SigIndices = make([]uint32, r.Len(4))
		for j := range in.SigIndices {
			in.SigIndices[j] = r.U32()
		}
	}
	return ins
}

// readString reads a u16-length-prefixed string.
func readString(r *Reader) string {
	n := int(r.U16())
	if r.Err() == nil && n > r.Remaining() {
		r.Fail(fmt.Errorf("%w: %d bytes", ErrTooLong, n))
		return ""
	}
	return string(r.take(n))
}

func (tx *BaseTx) read(r *Reader) {
	typ := r.U32()
	switch {
	case r.Err() != nil:
		return
	case typ == TypeAVMCreateAssetTx:
		tx.Asset = &CreateAsset{}
	case typ == TypeAVMImportTx:
		tx.Import = &Import{}
	case typ == TypeAVMExportTx:
		tx.Export = &Export{}
	case typ != TypeAVMBaseTx:
		r.Fail(fmt.Errorf("%w: tx %d", ErrTypeID, typ))
		return
	}
	tx.NetworkID = r.U32()
	r.Fixed(tx.BlockchainID[:])
	tx.Outs = readOuts(r)
	tx.Ins = readIns(r)
	tx.Memo = r.Var()
	switch {
	case tx.Asset != nil:
		a := tx.Asset
		a.Name = readString(r)
		a.Symbol = readString(r)
		a.Denomination = r.U8()
		// Only one initial state, of the secp256k1fx (index 0) with
		// transfer outputs, is read: the kind of asset this package makes.
		if n := r.Len(8); r.Err() == nil && n != 1 {
			r.Fail(fmt.Errorf("%w: %d initial states", ErrTypeID, n))
			return
		}
		if fx := r.U32(); r.Err() == nil && fx != 0 {
			r.Fail(fmt.Errorf("%w: initial state of fx %d", ErrTypeID, fx))
			return
		}
		a.Holders = make([]TransferOutput, r.Len(4+8+8+4+4))
		for i := range a.Holders {
			if out, ok := readOutput(r, false).(*TransferOutput); ok {
				a.Holders[i] = *out
			}
		}
	case tx.Import != nil:
		r.Fixed(tx.Import.SourceChain[:])
		tx.Import.Ins = readIns(r)
	case tx.Export != nil:
		r.Fixed(tx.Export.DestinationChain[:])
		tx.Export.Outs = readOuts(r)
	}
}

// UnsignedBytes returns 0000 ‖ type id ‖ fields: the bytes that are signed
// (their sha256 is the signing hash).
func (tx *BaseTx) UnsignedBytes() []byte {
	var w Writer
	w.U16(CodecVersion)
	tx.write(&w)
	return w.Bytes()
}

// Tx is a signed AVM transaction: the unsigned transaction and one
// secp256k1fx credential (type id 9) per input (BaseTx.Inputs), each
// holding SigLen-byte signatures.
type Tx struct {
	Unsigned BaseTx
	Creds    [][][SigLen]byte
}

func (tx *Tx) write(w *Writer) {
	tx.Unsigned.write(w)
	writeCreds(w, tx.Creds)
}

func (tx *Tx) read(r *Reader) {
	tx.Unsigned.read(r)
	tx.Creds = readCreds(r)
}

// writeCreds writes secp256k1fx credentials (type id 9), each a list of
// signatures.
func writeCreds(w *Writer, creds [][][SigLen]byte) {
	w.U32(uint32(len(creds)))
	for _, c := range creds {
		w.U32(TypeSECP256K1Credential)
		w.U32(uint32(len(c)))
		for _, s := range c {
			w.Fixed(s[:])
		}
	}
}

func readCreds(r *Reader) [][][SigLen]byte {
	creds := make([][][SigLen]byte, r.Len(8))
	for i := range creds {
		if t := r.U32(); r.Err() == nil && t != TypeSECP256K1Credential {
			r.Fail(fmt.Errorf("%w: credential %d", ErrTypeID, t))
			return nil
		}
		creds[i] = make([][SigLen]byte, r.Len(SigLen))
		for j := range creds[i] {
			r.Fixed(creds[i][j][:])
		}
	}
	return creds
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
