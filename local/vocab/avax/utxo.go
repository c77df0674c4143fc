package avax

import (
	"bytes"
	"fmt"
	"slices"
)

// Type ids of the outputs and inputs this package encodes. The secp256k1fx
// ids are the same in the AVM and the PlatformVM codecs (the PlatformVM
// registers the fx at the AVM's positions so that UTXOs move between chains
// through shared memory); the stakeable ids are the PlatformVM's.
const (
	TypeSECP256K1TransferInput  uint32 = 5
	TypeSECP256K1TransferOutput uint32 = 7
	TypeSECP256K1Credential     uint32 = 9
	TypeStakeableLockIn         uint32 = 21
	TypeStakeableLockOut        uint32 = 22
)

// OutputOwners is a threshold of addresses that may spend an output after
// Locktime (Unix seconds).
type OutputOwners struct {
	Locktime  uint64
	Threshold uint32
	Addrs     []ShortID // sorted, unique
}

func (o *OutputOwners) write(w *Writer) {
	w.U64(o.Locktime)
	w.U32(o.Threshold)
	w.U32(uint32(len(o.Addrs)))
	for _, a := range o.Addrs {
		w.Fixed(a[:])
	}
}

func (o *OutputOwners) read(r *Reader) {
	o.Locktime = r.U64()
	o.Threshold = r.U32()
	n := r.Len(20)
	o.Addrs = make([]ShortID, n)
	for i := range o.Addrs {
		r.Fixed(o.Addrs[i][:])
	}
}

// Output is a UTXO's output: *TransferOutput or *StakeableLockOut.
type Output interface {
	// TypeID is the output's codec type id.
	TypeID() uint32
	// Amount is the amount of the asset the output holds.
	Amount() uint64
	// Owners are the addresses that may spend it.
	Owners() *OutputOwners
	write(w *Writer)
}

var (
	_ Output = (*TransferOutput)(nil)
	_ Output = (*StakeableLockOut)(nil)
)

// TransferOutput is secp256k1fx.TransferOutput (type id 7).
type TransferOutput struct {
	Amt uint64
	OutputOwners
}

// TypeID returns 7.
func (*TransferOutput) TypeID() uint32 { return TypeSECP256K1TransferOutput }

// Amount returns Amt.
func (o *TransferOutput) Amount() uint64 { return o.Amt }

// Owners returns the output's owners.
func (o *TransferOutput) Owners() *OutputOwners { return &o.OutputOwners }

func (o *TransferOutput) write(w *Writer) {
	w.U64(o.Amt)
	o.OutputOwners.write(w)
}

// StakeableLockOut is the PlatformVM's stakeable.LockOut (type id 22): an
// output that can only be staked before Locktime.
type StakeableLockOut struct {
	Locktime uint64
	Out      TransferOutput
}

// TypeID returns 22.
func (*StakeableLockOut) TypeID() uint32 { return TypeStakeableLockOut }

// Amount returns the inner output's amount.
func (o *StakeableLockOut) Amount() uint64 { return o.Out.Amt }

// Owners returns the inner output's owners.
func (o *StakeableLockOut) Owners() *OutputOwners { return &o.Out.OutputOwners }

func (o *StakeableLockOut) write(w *Writer) {
	w.U64(o.Locktime)
	w.U32(o.Out.TypeID())
	o.Out.write(w)
}

// writeOutput writes out's type id and fields.
func writeOutput(w *Writer, out Output) {
	w.U32(out.TypeID())
	out.write(w)
}

// readOutput reads a type id and the output it names.
func readOutput(r *Reader, allowStakeable bool) Output {
	switch t := r.U32(); {
	case r.Err() != nil:
		return nil
	case t == TypeSECP256K1TransferOutput:
		o := &TransferOutput{Amt: r.U64()}
		o.OutputOwners.read(r)
		return o
	case t == TypeStakeableLockOut && allowStakeable:
		o := &StakeableLockOut{Locktime: r.U64()}
		if inner := r.U32(); r.Err() == nil && inner != TypeSECP256K1TransferOutput {
			r.Fail(fmt.Errorf("%w: %d inside a stakeable lock", ErrTypeID, inner))
			return nil
		}
		o.Out.Amt = r.U64()
		o.Out.OutputOwners.read(r)
		return o
	default:
		r.Fail(fmt.Errorf("%w: output %d", ErrTypeID, t))
		return nil
	}
}

// UTXO is an unspent transaction output (avalanchego vms/components/avax).
type UTXO struct {
	TxID        ID
	OutputIndex uint32
	AssetID     ID
	Out         Output
}

// ID returns the UTXO's id: TxID.Prefix(OutputIndex).
func (u *UTXO) ID() ID { return u.TxID.Prefix(uint64(u.OutputIndex)) }

// Bytes returns 0000 ‖ txID ‖ outputIndex ‖ assetID ‖ typeID ‖ output.
func (u *UTXO) Bytes() []byte {
	var w Writer
	w.U16(CodecVersion)
	w.Fixed(u.TxID[:])
	w.U32(u.OutputIndex)
	w.Fixed(u.AssetID[:])
	writeOutput(&w, u.Out)
	return w.Bytes()
}

// ParseUTXO decodes Bytes: a TransferOutput or a StakeableLockOut.
func ParseUTXO(b []byte) (*UTXO, error) {
	r := NewReader(b)
	r.Version()
	u := &UTXO{}
	r.Fixed(u.TxID[:])
	u.OutputIndex = r.U32()
	r.Fixed(u.AssetID[:])
	u.Out = readOutput(r, true)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("utxo: %w", err)
	}
	return u, nil
}

// SortShortIDs sorts ids in place by their bytes, the order OutputOwners
// requires.
func SortShortIDs(ids []ShortID) {
	slices.SortFunc(ids, func(a, b ShortID) int { return bytes.Compare(a[:], b[:]) })
}

// OutputBytes returns 0000 ‖ assetID ‖ typeID ‖ output: the codec bytes of
// the UTXO's output as an avax.TransferableOutput, the form platform.getStake
// lists a staked output in.
func (u *UTXO) OutputBytes() []byte {
	var w Writer
	w.U16(CodecVersion)
	w.Fixed(u.AssetID[:])
	writeOutput(&w, u.Out)
	return w.Bytes()
}
