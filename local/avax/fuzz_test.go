package avax

import (
	"bytes"
	"testing"
)

func FuzzCB58(f *testing.F) {
	for _, s := range []string{"1WByTYt3", "11111111111111111111111111111111LpoYY", "111111111111111111116DBWJs", "", "0", "zzzz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := CB58Decode(s)
		if err != nil {
			return
		}
		again, err := CB58Decode(CB58Encode(b))
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("round trip of %q: %x, %v", s, again, err)
		}
	})
}

func FuzzBase58(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 255})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		back, err := Base58Decode(Base58Encode(b))
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("round trip of %x: %x, %v", b, back, err)
		}
	})
}

func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"X-local18jma8ppw3nhx5r4ap8clazz0dps7rv5u00z96u", "P-fuji1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqxyzzz", "avax1", "a1qqqqqq", "X-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		chain, hrp, addr, err := ParseAddress(s)
		if err != nil {
			return
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
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeHex(s)
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

func FuzzParseTx(f *testing.F) {
	f.Add(sampleTx(f).Bytes())
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := ParseTx(b)
		if err != nil {
			return
		}
		if !bytes.Equal(tx.Bytes(), b) {
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

func FuzzParseVertex(f *testing.F) {
	f.Add((&Vertex{Height: 2, Parents: []ID{{1}}, Txs: [][]byte{{1, 2}}}).Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseVertex(b)
		if err != nil {
			return
		}
		if !bytes.Equal(v.Bytes(), b) {
			t.Fatalf("re-encoding differs for %x", b)
		}
	})
}
