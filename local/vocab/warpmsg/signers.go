package warpmsg

import "math/big"

// NewSigners returns the minimal big-endian bitset with the given canonical
// indices set: {0,2} → 05, {8} → 0100, {} → empty.
func NewSigners(indices ...int) []byte {
	var n big.Int
	for _, i := range indices {
		n.SetBit(&n, i, 1)
	}
	return n.Bytes()
}

// SignerIndices returns the canonical indices set in a signer bitset, in
// increasing order. It does not check minimality; ParseMessage does.
func SignerIndices(signers []byte) []int {
	var out []int
	for i := range len(signers) * 8 {
		byteIdx := len(signers) - 1 - i/8
		if signers[byteIdx]&(1<<(i%8)) != 0 {
			out = append(out, i)
		}
	}
	return out
}
