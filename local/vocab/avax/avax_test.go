package avax

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

const (
	ewoqKeyHex   = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"
	ewoqShortID  = "6Y3kysjF9jnHnYkdS9yGAuoHyae2eNmeV"
	ewoqXLocal   = "X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u"
	localXChain  = "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed"
	pChainString = "11111111111111111111111111111111LpoYY"
)

func TestCB58Vectors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"facts 000102", []byte{0, 1, 2}, "1WByTYt3"},
		{"empty id", make([]byte, 32), pChainString},
		{"empty short id", make([]byte, 20), "111111111111111111116DBWJs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CB58Encode(tt.in); got != tt.want {
				t.Fatalf("CB58Encode = %s; want %s", got, tt.want)
			}
			back, err := CB58Decode(tt.want)
			if err != nil || !bytes.Equal(back, tt.in) {
				t.Fatalf("CB58Decode = %x, %v; want %x", back, err, tt.in)
			}
		})
	}
	if _, err := CB58Decode("1WByTYt4"); !errors.Is(err, ErrChecksum) {
		t.Fatalf("bad checksum: got %v; want ErrChecksum", err)
	}
	if _, err := CB58Decode("0OIl"); !errors.Is(err, ErrBase58) {
		t.Fatalf("bad alphabet: got %v; want ErrBase58", err)
	}
}

func TestNodeID(t *testing.T) {
	var n NodeID
	copy(n[:], "abcdefghijklmnopqrst")
	const want = "NodeID-9svQk6dYpuVvADYURdidi4PaSqtBkKpN8"
	if got := n.String(); got != want {
		t.Fatalf("NodeID = %s; want %s", got, want)
	}
	back, err := ParseNodeID(want)
	if err != nil || back != n {
		t.Fatalf("ParseNodeID = %v, %v", back, err)
	}
	for _, bad := range []string{"9svQk6dYpuVvADYURdidi4PaSqtBkKpN8", "NodeID-1WByTYt3", "NodeID-"} {
		if _, err := ParseNodeID(bad); err == nil {
			t.Errorf("ParseNodeID(%q) succeeded; want an error", bad)
		}
	}
}

func TestIDs(t *testing.T) {
	id, err := ParseID(localXChain)
	if err != nil || id.String() != localXChain {
		t.Fatalf("ParseID round trip: %v %v", id, err)
	}
	if _, err := ParseID(ewoqShortID); !errors.Is(err, ErrLength) {
		t.Fatalf("ParseID(short) = %v; want ErrLength", err)
	}
	if p, _ := ParseID(pChainString); !p.IsEmpty() {
		t.Fatal("P-chain id is not empty")
	}
}

func TestEwoq(t *testing.T) {
	raw, _ := hex.DecodeString(ewoqKeyHex)
	k, err := NewPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	addr := k.Address()
	if got := addr.String(); got != ewoqShortID {
		t.Fatalf("short id = %s; want %s", got, ewoqShortID)
	}
	if got := FormatAddress("X", "local", addr); got != ewoqXLocal {
		t.Fatalf("address = %s; want %s", got, ewoqXLocal)
	}
	chain, hrp, back, err := ParseAddress(ewoqXLocal)
	if err != nil || chain != "X" || hrp != "local" || back != addr {
		t.Fatalf("ParseAddress = %q %q %v %v", chain, hrp, back, err)
	}
	h := sha256.Sum256([]byte("message"))
	sig := k.SignHash(h[:])
	if got, err := RecoverAddress(h[:], sig); err != nil || got != addr {
		t.Fatalf("RecoverAddress = %v, %v; want %v", got, err, addr)
	}
}

func TestAddressHRPs(t *testing.T) {
	var a ShortID
	for _, hrp := range []string{"avax", "fuji", "custom"} {
		s := FormatAddress("P", hrp, a)
		_, h, back, err := ParseAddress(s)
		if err != nil || h != hrp || back != a {
			t.Errorf("round trip %s: %q %v %v", s, h, back, err)
		}
	}
}

func TestBech32Rejects(t *testing.T) {
	for _, bad := range []string{
		"X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96v",  // checksum
		"X-LOCAL18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u",  // mixed case
		"-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u",   // empty chain
		"X-local1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", // wrong checksum and length
		"local1b",
	} {
		if _, _, _, err := ParseAddress(bad); err == nil {
			t.Errorf("ParseAddress(%q) succeeded; want an error", bad)
		}
	}
}

func TestHex(t *testing.T) {
	b := []byte{0, 1, 2}
	s := EncodeHex(b)
	c := sha256.Sum256(b)
	if want := "0x000102" + hex.EncodeToString(c[28:]); s != want {
		t.Fatalf("EncodeHex = %s; want %s", s, want)
	}
	back, err := DecodeHex(s)
	if err != nil || !bytes.Equal(back, b) {
		t.Fatalf("DecodeHex = %x, %v", back, err)
	}
	if _, err := DecodeHex("0x00010200000000"); !errors.Is(err, ErrChecksum) {
		t.Fatalf("DecodeHex(bad) = %v; want ErrChecksum", err)
	}
	if got := EncodeHexNC(b); got != "0x000102" {
		t.Fatalf("EncodeHexNC = %s", got)
	}
}

func TestUTXOBytes(t *testing.T) {
	var tx, asset ID
	tx[0], asset[31] = 0xaa, 0xbb
	addr := ShortID{1, 2, 3}
	u := &UTXO{TxID: tx, OutputIndex: 2, AssetID: asset,
		Out: &TransferOutput{Amt: 1000, OutputOwners: OutputOwners{Threshold: 1, Addrs: []ShortID{addr}}}}
	b := u.Bytes()
	want := "0000" + hex.EncodeToString(tx[:]) + "00000002" + hex.EncodeToString(asset[:]) +
		"00000007" + "00000000000003e8" + "0000000000000000" + "00000001" + "00000001" + hex.EncodeToString(addr[:])
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("UTXO bytes\n got %s\nwant %s", got, want)
	}
	back, err := ParseUTXO(b)
	if err != nil || !bytes.Equal(back.Bytes(), b) {
		t.Fatalf("ParseUTXO: %v", err)
	}
	lock := &UTXO{TxID: tx, AssetID: asset, Out: &StakeableLockOut{Locktime: 99, Out: TransferOutput{Amt: 5, OutputOwners: OutputOwners{Threshold: 1, Addrs: []ShortID{addr}}}}}
	back, err = ParseUTXO(lock.Bytes())
	if err != nil || back.Out.TypeID() != TypeStakeableLockOut || back.Out.Amount() != 5 {
		t.Fatalf("ParseUTXO(lock) = %+v, %v", back, err)
	}
	if _, err := ParseUTXO(append(b, 0)); !errors.Is(err, ErrTrailing) {
		t.Fatalf("trailing: %v", err)
	}
	if _, err := ParseUTXO(b[:len(b)-1]); err == nil {
		t.Fatalf("short: %v", err)
	}
}

func sampleTx(t testing.TB) *Tx {
	raw, _ := hex.DecodeString(ewoqKeyHex)
	k, err := NewPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	chain, _ := ParseID(localXChain)
	var asset, prev ID
	asset[0], prev[1] = 1, 2
	tx := &Tx{Unsigned: BaseTx{
		NetworkID: 12345, BlockchainID: chain,
		Outs: []TransferableOutput{{AssetID: asset, Out: TransferOutput{Amt: 7, OutputOwners: OutputOwners{Threshold: 1, Addrs: []ShortID{k.Address()}}}}},
		Ins:  []TransferableInput{{TxID: prev, OutputIndex: 1, AssetID: asset, Amount: 8, SigIndices: []uint32{0}}},
		Memo: []byte("hi"),
	}}
	h := sha256.Sum256(tx.Unsigned.UnsignedBytes())
	tx.Creds = [][][SigLen]byte{{k.SignHash(h[:])}}
	return tx
}

func TestTxBlock(t *testing.T) {
	tx := sampleTx(t)
	b := tx.Bytes()
	if !bytes.HasPrefix(b, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0x30, 0x39}) {
		t.Fatalf("tx prefix %x; want codec 0, type 0, network 12345", b[:11])
	}
	back, err := ParseTx(b)
	if err != nil || !bytes.Equal(back.Bytes(), b) {
		t.Fatalf("ParseTx: %v", err)
	}
	blk := &StandardBlock{Height: 3, Time: 1607144400, Txs: []Tx{*tx, *tx}}
	bb := blk.Bytes()
	if got := hex.EncodeToString(bb[:6]); got != "000000000014" {
		t.Fatalf("block prefix %s; want 000000000014", got)
	}
	pb, err := ParseStandardBlock(bb)
	if err != nil || pb.ID() != blk.ID() || len(pb.Txs) != 2 || pb.Txs[1].ID() != tx.ID() {
		t.Fatalf("ParseStandardBlock: %v", err)
	}
}

// TestExtendedTxs round-trips a CreateAssetTx, an ImportTx and an ExportTx
// and checks the type id each is written with. (test/avalanchego parses
// them with avalanchego's own codec.)
func TestExtendedTxs(t *testing.T) {
	owner := OutputOwners{Threshold: 1, Addrs: []ShortID{{7}}}
	var chain ID
	chain[0] = 5
	for _, tc := range []struct {
		name string
		typ  uint32
		set  func(u *BaseTx)
	}{
		{"CreateAssetTx", TypeAVMCreateAssetTx, func(u *BaseTx) {
			u.Asset = &CreateAsset{Name: "Devnet Gold", Symbol: "DGLD", Denomination: 2,
				Holders: []TransferOutput{{Amt: 9, OutputOwners: owner}, {Amt: 3, OutputOwners: owner}}}
		}},
		{"ImportTx", TypeAVMImportTx, func(u *BaseTx) {
			u.Import = &Import{SourceChain: chain, Ins: []TransferableInput{{TxID: ID{9}, OutputIndex: 2, Amount: 4, SigIndices: []uint32{0}}}}
		}},
		{"ExportTx", TypeAVMExportTx, func(u *BaseTx) {
			u.Export = &Export{DestinationChain: chain, Outs: []TransferableOutput{{Out: TransferOutput{Amt: 5, OutputOwners: owner}}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx := sampleTx(t)
			tc.set(&tx.Unsigned)
			tx.Unsigned.Sort()
			tx.Creds = make([][][SigLen]byte, len(tx.Unsigned.Inputs()))
			b := tx.Bytes()
			if got := binary.BigEndian.Uint32(b[2:6]); got != tc.typ {
				t.Fatalf("type id %d; want %d", got, tc.typ)
			}
			back, err := ParseTx(b)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back.Bytes(), b) || back.Unsigned.TypeID() != tc.typ {
				t.Fatalf("round trip changed the tx: %x", back.Bytes())
			}
			if _, err := ParseTx(b[:len(b)-1]); err == nil {
				t.Fatal("a truncated tx parsed")
			}
		})
	}
}

func TestPrefix(t *testing.T) {
	var id ID
	id[0] = 9
	var w Writer
	w.U64(3)
	w.Fixed(id[:])
	if got, want := id.Prefix(3), Hash256(w.Bytes()); got != want {
		t.Fatalf("Prefix = %v; want %v", got, want)
	}
}

func TestLengthLimits(t *testing.T) {
	var id ID
	var short ShortID
	var node NodeID
	for i := range id {
		id[i] = 0xff
	}
	for i := range short {
		short[i], node[i] = 0xff, 0xff
	}
	for _, tc := range []struct {
		name    string
		printed string
		max     int
	}{
		{"largest id", id.String(), MaxIDLen},
		{"largest short id", short.String(), MaxShortIDLen},
		{"largest node id", node.String(), MaxNodeIDLen},
		{"largest address", strings.Repeat("z", MaxIDLen) + "-" + FormatBech32(strings.Repeat("a", 83-33), short), MaxAddressLen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.printed) > tc.max {
				t.Fatalf("%s has %d characters; the limit is %d", tc.printed, len(tc.printed), tc.max)
			}
		})
	}
	huge := strings.Repeat("z", 200_000)
	for _, tc := range []struct {
		name  string
		parse func(string) error
		in    string
	}{
		{"id", func(s string) error { _, err := ParseID(s); return err }, huge},
		{"id one over", func(s string) error { _, err := ParseID(s); return err }, huge[:MaxIDLen+1]},
		{"short id", func(s string) error { _, err := ParseShortID(s); return err }, huge},
		{"node id", func(s string) error { _, err := ParseNodeID(s); return err }, NodeIDPrefix + huge},
		{"address", func(s string) error { _, _, _, err := ParseAddress(s); return err }, "X-" + huge},
		{"cb58", func(s string) error { _, err := CB58Decode(s); return err }, huge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			within(t, tc.in, func() { err = tc.parse(tc.in) })
			if !errors.Is(err, ErrInputTooLong) {
				t.Fatalf("got %v; want ErrInputTooLong", err)
			}
			if len(err.Error()) > 200 {
				t.Fatalf("error has %d bytes; want the input clipped", len(err.Error()))
			}
		})
	}
}

func BenchmarkCB58DecodeLongest(b *testing.B) {
	s := strings.Repeat("z", MaxBase58Len)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CB58Decode(s); err == nil {
			b.Fatal("a string of z decoded with a valid checksum")
		}
	}
}
