// Package avax holds Avalanche's identifiers and encodings: 32-byte ids,
// 20-byte short ids and node ids, cb58, bech32 addresses, checksummed hex and
// the pieces of the linear codec that UTXOs, X-chain transactions, blocks and
// vertices need. Every function is pure and safe for concurrent use.
package avax

import (
	"crypto/sha256"
	"encoding/binary"
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

// Length limits of the printed forms, checked before any decoding: base58
// decoding is quadratic in its input, so a decoder must never see a string
// longer than the type it reads can be.
const (
	// MaxBase58Len bounds every string Base58Decode and CB58Decode accept:
	// 1,024 characters, about 750 bytes, far more than any id the local
	// world prints (at most 36 bytes with the checksum).
	MaxBase58Len = 1024
	// MaxIDLen is the longest cb58 form of a 32-byte ID: 36 bytes with the
	// checksum are at most 50 base58 digits (288 bits / log2(58) < 50).
	MaxIDLen = 50
	// MaxShortIDLen is the longest cb58 form of a 20-byte ShortID: 24 bytes
	// with the checksum are at most 33 digits.
	MaxShortIDLen = 33
	// MaxNodeIDLen is the longest printed NodeID: "NodeID-" and a short id.
	MaxNodeIDLen = len(NodeIDPrefix) + MaxShortIDLen
)

// ErrInputTooLong means a string is longer than any value of its type can be; it
// is refused before decoding.
var ErrInputTooLong = errors.New("avax: input too long")

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

// Base58Decode reverses Base58Encode. Strings over MaxBase58Len characters
// get ErrInputTooLong without being read. The work is quadratic in the
// length, in 32-bit limbs five digits at a time: about 0.1 ms at the limit.
func Base58Decode(s string) ([]byte, error) {
	if len(s) > MaxBase58Len {
		return nil, ErrInputTooLong
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// The value in 32-bit limbs, least significant first; a digit is less
	// than 0.1831 limbs (log(58)/log(2^32)).
	limbs := make([]uint32, 0, (len(s)-zeros)*1831/10000+1)
	for i := zeros; i < len(s); {
		// Fold up to five digits into one multiply-add: 58^5 < 2^30, so a
		// limb times mul plus the carry stays under 2^63.
		mul, add := uint64(1), uint64(0)
		for k := 0; k < 5 && i < len(s); k, i = k+1, i+1 {
			v := base58Index[s[i]]
			if v < 0 {
				return nil, ErrBase58
			}
			mul *= 58
			add = add*58 + uint64(v)
		}
		carry := add
		for j := range limbs {
			carry += uint64(limbs[j]) * mul
			limbs[j] = uint32(carry)
			carry >>= 32
		}
		for ; carry != 0; carry >>= 32 {
			limbs = append(limbs, uint32(carry))
		}
	}
	value := make([]byte, 4*len(limbs))
	for j, l := range limbs {
		binary.BigEndian.PutUint32(value[len(value)-4*(j+1):], l)
	}
	i := 0
	for i < len(value) && value[i] == 0 {
		i++
	}
	res := make([]byte, zeros+len(value)-i)
	copy(res[zeros:], value[i:])
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
