package avax

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// maxDecodeTime bounds one decode of any input (issue 18: a 200,000
// character id once took 29 s of CPU).
const maxDecodeTime = 10 * time.Millisecond

// within runs f and fails t when it takes longer than maxDecodeTime twice
// in a row: a slow input is slow on every run, while one run can lose its
// core to another process on a busy machine.
func within(t *testing.T, in string, f func()) {
	t.Helper()
	var d time.Duration
	for range 2 {
		start := time.Now()
		f()
		if d = time.Since(start); d <= maxDecodeTime {
			return
		}
	}
	t.Fatalf("decoding %d bytes (%s) took %v; want at most %v", len(in), Clip(in), d, maxDecodeTime)
}

// long are seeds every decoder must refuse quickly: strings far over every
// limit, and the longest strings the decoders still read. (TestLengthLimits
// sends 200,000 characters; seeds that long slow the mutator down.)
var long = []string{
	strings.Repeat("z", 5000),
	strings.Repeat("z", MaxBase58Len),
	strings.Repeat("1", MaxBase58Len-8) + "1WByTYt3",
	"NodeID-" + strings.Repeat("z", 5000),
	"X-" + strings.Repeat("q", 5000),
	"0x" + strings.Repeat("ab", 2500),
}

// FuzzCB58 fuzzes CB58Decode, base58 from github.com/mr-tron/base58 under
// our length limit and checksum: every input is refused quickly with one of
// our errors, or decodes to bytes whose encoding is the input again.
func FuzzCB58(f *testing.F) {
	for _, s := range []string{"1WByTYt3", "11111111111111111111111111111111LpoYY", "111111111111111111116DBWJs", "", "0", "zzzz"} {
		f.Add(s)
	}
	for _, s := range long {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b []byte
		var err error
		within(t, s, func() { b, err = CB58Decode(s) })
		if len(s) > MaxBase58Len && !errors.Is(err, ErrInputTooLong) {
			t.Fatalf("CB58Decode of %d characters = %v; the limit is %d", len(s), err, MaxBase58Len)
		}
		if err != nil {
			if !errors.Is(err, ErrInputTooLong) && !errors.Is(err, ErrBase58) && !errors.Is(err, ErrChecksum) {
				t.Fatalf("CB58Decode(%s) = %v; want one of avax's errors", Clip(s), err)
			}
			return
		}
		if again := CB58Encode(b); again != s {
			t.Fatalf("CB58Encode(CB58Decode(%q)) = %q", s, again)
		}
	})
}

// FuzzCB58Encode fuzzes CB58Encode: whatever bytes it prints, CB58Decode
// reads back, or refuses as too long when the printed form is over
// MaxBase58Len.
func FuzzCB58Encode(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 255})
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, 740))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > MaxBase58Len*3/4 {
			// The encoder is quadratic too; it only ever prints ids.
			return
		}
		enc := CB58Encode(b)
		var back []byte
		var err error
		within(t, enc, func() { back, err = CB58Decode(enc) })
		if len(enc) > MaxBase58Len {
			if !errors.Is(err, ErrInputTooLong) {
				t.Fatalf("CB58Decode of %d characters = %v; the limit is %d", len(enc), err, MaxBase58Len)
			}
			return
		}
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("round trip of %x: %x, %v", b, back, err)
		}
	})
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{pChainString, localXChain, ewoqShortID, "", "0"} {
		f.Add(s)
	}
	for _, s := range long {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var id ID
		var err error
		within(t, s, func() { id, err = ParseID(s) })
		if err != nil {
			return
		}
		if len(s) > MaxIDLen {
			t.Fatalf("ParseID accepted %d characters; the limit is %d", len(s), MaxIDLen)
		}
		if back, err := ParseID(id.String()); err != nil || back != id {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

func FuzzParseNodeID(f *testing.F) {
	for _, s := range []string{"NodeID-9svQk6dYpuVvADYURdidi4PaSqtBkKpN8", "NodeID-111111111111111111116DBWJs", "NodeID-", "9svQk6dYpuVvADYURdidi4PaSqtBkKpN8"} {
		f.Add(s)
	}
	for _, s := range long {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n NodeID
		var err error
		within(t, s, func() { n, err = ParseNodeID(s) })
		if err != nil {
			return
		}
		if len(s) > MaxNodeIDLen {
			t.Fatalf("ParseNodeID accepted %d characters; the limit is %d", len(s), MaxNodeIDLen)
		}
		if back, err := ParseNodeID(n.String()); err != nil || back != n {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

// FuzzBech32 fuzzes Bech32Decode, btcutil's bech32 with the 8-bit
// conversion: every refusal wraps ErrBech32, and what it reads encodes and
// reads back to the same bytes.
func FuzzBech32(f *testing.F) {
	for _, s := range []string{"local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u", "A12UEL5L", "a12uel5l", "avax1", "1qqqqqqqq"} {
		f.Add(s)
	}
	for _, s := range long {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var hrp string
		var data []byte
		var err error
		within(t, s, func() { hrp, data, err = Bech32Decode(s) })
		if err != nil {
			if !errors.Is(err, ErrBech32) {
				t.Fatalf("Bech32Decode(%s) = %v; want ErrBech32", Clip(s), err)
			}
			return
		}
		enc, err := Bech32Encode(hrp, data)
		if err != nil {
			// Padding bits make some five-bit strings decode to bytes
			// whose encoding differs; the hrp is what must encode.
			t.Fatalf("Bech32Encode(%q) of a decoded string: %v", hrp, err)
		}
		if _, back, err := Bech32Decode(enc); err != nil || !bytes.Equal(back, data) {
			t.Fatalf("round trip of %q: %x, %v", s, back, err)
		}
	})
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{ewoqXLocal, "P-fuji1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqxyzzz", "avax1", "a1qqqqqq", "X-"} {
		f.Add(s)
	}
	for _, s := range long {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var chain, hrp string
		var addr ShortID
		var err error
		within(t, s, func() { chain, hrp, addr, err = ParseAddress(s) })
		if err != nil {
			return
		}
		if len(s) > MaxAddressLen {
			t.Fatalf("ParseAddress accepted %d characters; the limit is %d", len(s), MaxAddressLen)
		}
		_, _, back, err := ParseAddress(FormatAddress(chain, hrp, addr))
		if err != nil || back != addr {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

func FuzzDecodeHex(f *testing.F) {
	f.Add(EncodeHex([]byte{0, 1, 2}))
	f.Add("0x")
	f.Add("0xzz")
	for _, s := range long {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b []byte
		var err error
		within(t, s, func() { b, err = DecodeHex(s) })
		if err != nil {
			return
		}
		if back, err := DecodeHex(EncodeHex(b)); err != nil || !bytes.Equal(back, b) {
			t.Fatalf("round trip of %q", s)
		}
	})
}

func FuzzParseUTXO(f *testing.F) {
	u := &UTXO{Out: &TransferOutput{Amt: 1, OutputOwners: OutputOwners{Threshold: 1, Addrs: []ShortID{{1}}}}}
	f.Add(u.Bytes())
	f.Add((&UTXO{Out: &StakeableLockOut{Locktime: 1, Out: TransferOutput{Amt: 2}}}).Bytes())
	f.Add([]byte{0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		u, err := ParseUTXO(b)
		if err != nil {
			return
		}
		if !bytes.Equal(u.Bytes(), b) {
			t.Fatalf("re-encoding differs for %x", b)
		}
	})
}

func FuzzParseStandardBlock(f *testing.F) {
	tx := sampleTx(f)
	f.Add((&StandardBlock{Height: 1, Txs: []Tx{*tx}}).Bytes())
	f.Add((&StandardBlock{}).Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		blk, err := ParseStandardBlock(b)
		if err != nil {
			return
		}
		if !bytes.Equal(blk.Bytes(), b) {
			t.Fatalf("re-encoding differs for %x", b)
		}
	})
}

// FuzzParseTx: the X-Chain transaction parser, for every type this package
// writes, never panics and re-encodes what it accepts to the same bytes.
func FuzzParseTx(f *testing.F) {
	tx := sampleTx(f)
	f.Add(tx.Bytes())
	owner := OutputOwners{Threshold: 1, Addrs: []ShortID{{7}}}
	tx.Unsigned.Asset = &CreateAsset{Name: "A", Symbol: "B", Holders: []TransferOutput{{Amt: 1, OutputOwners: owner}}}
	f.Add(tx.Bytes())
	tx.Unsigned.Asset = nil
	tx.Unsigned.Import = &Import{Ins: []TransferableInput{{Amount: 1}}}
	f.Add(tx.Bytes())
	tx.Unsigned.Import = nil
	tx.Unsigned.Export = &Export{Outs: []TransferableOutput{{Out: TransferOutput{Amt: 1, OutputOwners: owner}}}}
	f.Add(tx.Bytes())
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := ParseTx(b)
		if err != nil {
			return
		}
		if !bytes.Equal(tx.Bytes(), b) {
			t.Fatalf("ParseTx(%x) re-encodes to %x", b, tx.Bytes())
		}
	})
}
