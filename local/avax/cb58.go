// Package avax holds Avalanche's identifiers and encodings: 32-byte ids,
// 20-byte short ids and node ids, cb58, bech32 addresses, checksummed hex and
// the pieces of the linear codec that UTXOs, X-chain transactions, blocks and
// vertices need. Every function is pure and safe for concurrent use.
package avax

import (
	"crypto/sha256"
	"errors"
)

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var base58Index = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(base58Alphabet); i++ {
		t[base58Alphabet[i]] = int8(i)
	}
	return t
}()

// Errors of the decoders.
var (
	// ErrBase58 means a string holds a character outside the base58 alphabet.
	ErrBase58 = errors.New("avax: invalid base58 character")
	// ErrChecksum means a cb58 or checksummed hex string has a wrong checksum.
	ErrChecksum = errors.New("avax: bad checksum")
	// ErrLength means decoded bytes have the wrong length for their type.
	ErrLength = errors.New("avax: wrong length")
)

// maxCB58Len bounds the strings the decoders accept, so that a hostile input
// cannot make the quadratic base58 decoder spin. 1 MiB of bytes is far more
// than any id, UTXO or transaction the local world encodes.
const maxCB58Len = 1 << 20

// Base58Encode returns b in Bitcoin's base58 alphabet, leading zero bytes as
// '1's.
func Base58Encode(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	// log(256)/log(58) < 1.37
	out := make([]byte, (len(b)-zeros)*138/100+1)
	high := len(out) - 1
	for _, c := range b[zeros:] {
		carry := int(c)
		j := len(out) - 1
		for ; j > high || carry != 0; j-- {
			carry += 256 * int(out[j])
			out[j] = byte(carry % 58)
			carry /= 58
		}
		high = j
	}
	i := 0
	for i < len(out) && out[i] == 0 {
		i++
	}
	s := make([]byte, zeros, zeros+len(out)-i)
	for k := range s {
		s[k] = '1'
	}
	for _, d := range out[i:] {
		s = append(s, base58Alphabet[d])
	}
	return string(s)
}

// Base58Decode reverses Base58Encode.
func Base58Decode(s string) ([]byte, error) {
	if len(s) > maxCB58Len*138/100+8 {
		return nil, ErrLength
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// log(58)/log(256) < 0.733
	out := make([]byte, (len(s)-zeros)*733/1000+1)
	high := len(out) - 1
	for i := zeros; i < len(s); i++ {
		v := base58Index[s[i]]
		if v < 0 {
			return nil, ErrBase58
		}
		carry := int(v)
		j := len(out) - 1
		for ; j > high || carry != 0; j-- {
			carry += 58 * int(out[j])
			out[j] = byte(carry)
			carry >>= 8
		}
		high = j
	}
	i := 0
	for i < len(out) && out[i] == 0 {
		i++
	}
	res := make([]byte, zeros+len(out)-i)
	copy(res[zeros:], out[i:])
	return res, nil
}

// checksum returns the last 4 bytes of sha256(b).
func checksum(b []byte) [4]byte {
	h := sha256.Sum256(b)
	return [4]byte(h[28:])
}

// CB58Encode returns base58(b ‖ last 4 bytes of sha256(b)).
func CB58Encode(b []byte) string {
	c := checksum(b)
	buf := make([]byte, 0, len(b)+4)
	buf = append(append(buf, b...), c[:]...)
	return Base58Encode(buf)
}

// CB58Decode reverses CB58Encode and checks the checksum.
func CB58Decode(s string) ([]byte, error) {
	raw, err := Base58Decode(s)
	if err != nil {
		return nil, err
	}
	if len(raw) < 4 {
		return nil, ErrChecksum
	}
	body, sum := raw[:len(raw)-4], raw[len(raw)-4:]
	if c := checksum(body); string(c[:]) != string(sum) {
		return nil, ErrChecksum
	}
	return body, nil
}
