package warp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/big"
	"slices"
	"strings"
)

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var errBadID = errors.New("not a hex or cb58 encoded 32-byte id")

// encodeCB58 returns base58(b ‖ last 4 bytes of sha256(b)).
func encodeCB58(b []byte) string {
	sum := sha256.Sum256(b)
	full := append(bytes.Clone(b), sum[len(sum)-4:]...)
	var n big.Int
	n.SetBytes(full)
	var out []byte
	radix, mod := big.NewInt(58), new(big.Int)
	for n.Sign() > 0 {
		n.QuoRem(&n, radix, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, c := range full {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	slices.Reverse(out)
	return string(out)
}

// decodeCB58 inverts encodeCB58 for inputs of at most maxLen characters.
func decodeCB58(s string, maxLen int) ([]byte, bool) {
	if len(s) == 0 || len(s) > maxLen {
		return nil, false
	}
	var n big.Int
	radix := big.NewInt(58)
	zeros := 0
	for i := 0; i < len(s) && s[i] == '1'; i++ {
		zeros++
	}
	for i := range len(s) {
		d := strings.IndexByte(base58Alphabet, s[i])
		if d < 0 {
			return nil, false
		}
		n.Mul(&n, radix)
		n.Add(&n, big.NewInt(int64(d)))
	}
	full := append(make([]byte, zeros), n.Bytes()...)
	if len(full) < 4 {
		return nil, false
	}
	b, check := full[:len(full)-4], full[len(full)-4:]
	sum := sha256.Sum256(b)
	if !bytes.Equal(check, sum[len(sum)-4:]) {
		return nil, false
	}
	return b, true
}

// parseID reads a 32-byte id written as hex (0x optional) or cb58.
func parseID(s string) ([IDLen]byte, error) {
	var id [IDLen]byte
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(h) == 2*IDLen {
		if _, err := hex.Decode(id[:], []byte(h)); err == nil {
			return id, nil
		}
	}
	b, ok := decodeCB58(s, 64)
	if !ok || len(b) != IDLen {
		return id, errBadID
	}
	copy(id[:], b)
	return id, nil
}

// decodeHex reads hex with an optional 0x prefix.
func decodeHex(s string) ([]byte, error) {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	return hex.DecodeString(s)
}
