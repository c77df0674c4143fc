package avax

import (
	"errors"
	"fmt"
)

// Coreth's atomic codec type ids (avalanchego v1.14.2
// graft/coreth/plugin/evm/atomic/codec.go registers UnsignedImportTx and
// UnsignedExportTx as 0 and 1, skips 3, then the secp256k1fx's
// TransferInput 5, TransferOutput 7, Credential 9, Input 10 and
// OutputOwners 11: the same fx ids as the AVM's).
const (
	TypeAtomicImportTx uint32 = 0
	TypeAtomicExportTx uint32 = 1
)

// ErrNoAtomicTxs means a block's extra data holds an empty batch, which
// coreth refuses.
var ErrNoAtomicTxs = errors.New("avax: extra data with zero atomic transactions")

// EVMOutput credits an EVM address with an amount of an asset (an
// ImportTx's output).
type EVMOutput struct {
	Address [20]byte
	Amount  uint64
	AssetID ID
}

// EVMInput debits an EVM address of an amount of an asset at its nonce (an
// ExportTx's input).
type EVMInput struct {
	Address [20]byte
	Amount  uint64
	AssetID ID
	Nonce   uint64
}

// AtomicTx is a signed C-Chain atomic transaction (coreth's atomic.Tx): an
// UnsignedImportTx (Import set) or an UnsignedExportTx (Export set), and
// one secp256k1fx credential per input.
type AtomicTx struct {
	NetworkID    uint32
	BlockchainID ID
	// Chain is the import's source chain or the export's destination.
	Chain  ID
	Import *AtomicImport
	Export *AtomicExport
	Creds  [][][SigLen]byte
	// Signed is the transaction's bytes, 0000 ‖ type id ‖ fields ‖
	// credentials, as coreth marshals it alone; its sha256 is the id.
	Signed []byte
}

// AtomicImport is an UnsignedImportTx's own fields: the UTXOs it spends
// from the source chain's shared memory and the EVM balances it credits.
type AtomicImport struct {
	Ins  []TransferableInput
	Outs []EVMOutput
}

// AtomicExport is an UnsignedExportTx's own fields: the EVM balances it
// debits and the outputs it puts into the destination's shared memory.
type AtomicExport struct {
	Ins  []EVMInput
	Outs []TransferableOutput
}

// ID returns sha256(Signed).
func (tx *AtomicTx) ID() ID { return Hash256(tx.Signed) }

// Type is the transaction's type name: ImportTx or ExportTx.
func (tx *AtomicTx) Type() string {
	if tx.Import != nil {
		return "ImportTx"
	}
	return "ExportTx"
}

// Bytes encodes the transaction as coreth marshals it alone.
func (tx *AtomicTx) Bytes() []byte {
	var w Writer
	w.U16(CodecVersion)
	tx.write(&w)
	return w.Bytes()
}

func (tx *AtomicTx) write(w *Writer) {
	if tx.Import != nil {
		w.U32(TypeAtomicImportTx)
	} else {
		w.U32(TypeAtomicExportTx)
	}
	w.U32(tx.NetworkID)
	w.Fixed(tx.BlockchainID[:])
	w.Fixed(tx.Chain[:])
	if tx.Import != nil {
		writeIns(w, tx.Import.Ins)
		w.U32(uint32(len(tx.Import.Outs)))
		for _, o := range tx.Import.Outs {
			w.Fixed(o.Address[:])
			w.U64(o.Amount)
			w.Fixed(o.AssetID[:])
		}
	} else {
		w.U32(uint32(len(tx.Export.Ins)))
		for _, in := range tx.Export.Ins {
			w.Fixed(in.Address[:])
			w.U64(in.Amount)
			w.Fixed(in.AssetID[:])
			w.U64(in.Nonce)
		}
		writeOuts(w, tx.Export.Outs)
	}
	writeCreds(w, tx.Creds)
}

// read decodes one transaction (without the codec version) and sets
// Signed to the version and the bytes it read.
func (tx *AtomicTx) read(r *Reader) {
	start := r.off
	switch typ := r.U32(); {
	case r.Err() != nil:
		return
	case typ == TypeAtomicImportTx:
		tx.Import = &AtomicImport{}
	case typ == TypeAtomicExportTx:
		tx.Export = &AtomicExport{}
	default:
		r.Fail(fmt.Errorf("%w: atomic tx %d", ErrTypeID, typ))
		return
	}
	tx.NetworkID = r.U32()
	r.Fixed(tx.BlockchainID[:])
	r.Fixed(tx.Chain[:])
	if tx.Import != nil {
		tx.Import.Ins = readIns(r)
		tx.Import.Outs = make([]EVMOutput, r.Len(20+8+32))
		for i := range tx.Import.Outs {
			o := &tx.Import.Outs[i]
			r.Fixed(o.Address[:])
			o.Amount = r.U64()
			r.Fixed(o.AssetID[:])
		}
	} else {
		tx.Export.Ins = make([]EVMInput, r.Len(20+8+32+8))
		for i := range tx.Export.Ins {
			in := &tx.Export.Ins[i]
			r.Fixed(in.Address[:])
			in.Amount = r.U64()
			r.Fixed(in.AssetID[:])
			in.Nonce = r.U64()
		}
		tx.Export.Outs = readOuts(r)
	}
	tx.Creds = readCreds(r)
	if r.Err() == nil {
		tx.Signed = append([]byte{0, 0}, r.b[start:r.off]...)
	}
}

// ParseAtomicTx decodes AtomicTx.Bytes: one signed atomic transaction, as
// avax.issueTx and avax.getAtomicTx carry it.
func ParseAtomicTx(b []byte) (*AtomicTx, error) {
	r := NewReader(b)
	r.Version()
	tx := &AtomicTx{}
	tx.read(r)
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("atomic tx: %w", err)
	}
	return tx, nil
}

// ParseAtomicTxs decodes a C-Chain block's extra data (eth_getBlockByNumber's
// blockExtraData): since ApricotPhase5 a batch, 0000 ‖ u32 count ‖ the
// transactions (each without its version), which coreth refuses empty;
// before it a single transaction (ParseAtomicTx). batch says which: coreth
// decides by the block's time. Empty data holds no transaction.
func ParseAtomicTxs(b []byte, batch bool) ([]*AtomicTx, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if !batch {
		tx, err := ParseAtomicTx(b)
		if err != nil {
			return nil, err
		}
		return []*AtomicTx{tx}, nil
	}
	r := NewReader(b)
	r.Version()
	// The smallest transaction: type, network, two ids, three empty lists.
	txs := make([]*AtomicTx, r.Len(4+4+32+32+4+4+4))
	for i := range txs {
		txs[i] = &AtomicTx{}
		txs[i].read(r)
	}
	if err := r.Done(); err != nil {
		return nil, fmt.Errorf("atomic txs: %w", err)
	}
	if len(txs) == 0 {
		return nil, ErrNoAtomicTxs
	}
	return txs, nil
}

// AtomicTxsBytes encodes txs as a post-ApricotPhase5 block's extra data.
func AtomicTxsBytes(txs []*AtomicTx) []byte {
	var w Writer
	w.U16(CodecVersion)
	w.U32(uint32(len(txs)))
	for _, tx := range txs {
		tx.write(&w)
	}
	return w.Bytes()
}

// UnsignedBytes returns the bytes the credentials sign (their sha256 is the
// signing hash): Signed without the credentials.
func (tx *AtomicTx) UnsignedBytes() []byte {
	n := 4
	for _, c := range tx.Creds {
		n += 8 + SigLen*len(c)
	}
	return tx.Signed[:len(tx.Signed)-n]
}
