package avax

import (
	"errors"
	"fmt"
	"strings"

	"github.com/avaedge/avaedge/avanet"
)

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

var bech32Index = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(bech32Charset); i++ {
		t[bech32Charset[i]] = int8(i)
	}
	return t
}()

// ErrBech32 means a string is not a valid bech32 string (BIP 173).
var ErrBech32 = errors.New("avax: invalid bech32")

func bech32Polymod(values []byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	chk := uint32(1)
	for _, v := range values {
		top := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if (top>>i)&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

func hrpExpand(hrp string) []byte {
	out := make([]byte, 0, 2*len(hrp)+1)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]>>5)
	}
	out = append(out, 0)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]&31)
	}
	return out
}

// convertBits regroups bits; pad says whether a partial last group is
// padded with zeros (encoding) or must be zero padding (decoding).
func convertBits(data []byte, from, to uint, pad bool) ([]byte, error) {
	var acc, bits uint
	maxv := uint(1)<<to - 1
	out := make([]byte, 0, len(data)*int(from)/int(to)+1)
	for _, v := range data {
		if uint(v)>>from != 0 {
			return nil, ErrBech32
		}
		acc = acc<<from | uint(v)
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits&maxv))
		}
	}
	if pad {
		if bits > 0 {
			out = append(out, byte(acc<<(to-bits)&maxv))
		}
	} else if bits >= from || acc<<(to-bits)&maxv != 0 {
		return nil, ErrBech32
	}
	return out, nil
}

// Bech32Encode returns the bech32 string of data (8-bit bytes) under hrp.
func Bech32Encode(hrp string, data []byte) (string, error) {
	if hrp == "" || len(hrp) > 83 {
		return "", fmt.Errorf("%w: hrp length %d", ErrBech32, len(hrp))
	}
	for i := 0; i < len(hrp); i++ {
		if hrp[i] < 33 || hrp[i] > 126 || (hrp[i] >= 'A' && hrp[i] <= 'Z') {
			return "", fmt.Errorf("%w: hrp character %q", ErrBech32, hrp[i])
		}
	}
	five, _ := convertBits(data, 8, 5, true) // cannot fail from 8-bit input
	vals := append(hrpExpand(hrp), five...)
	vals = append(vals, 0, 0, 0, 0, 0, 0)
	pm := bech32Polymod(vals) ^ 1
	var sb strings.Builder
	sb.Grow(len(hrp) + 1 + len(five) + 6)
	sb.WriteString(hrp)
	sb.WriteByte('1')
	for _, v := range five {
		sb.WriteByte(bech32Charset[v])
	}
	for i := range 6 {
		sb.WriteByte(bech32Charset[(pm>>(5*(5-i)))&31])
	}
	return sb.String(), nil
}

// Bech32Decode reverses Bech32Encode. Mixed case is rejected; all-upper is
// accepted and lowered, as BIP 173 says.
func Bech32Decode(s string) (hrp string, data []byte, err error) {
	if len(s) < 8 || len(s) > 90 {
		return "", nil, fmt.Errorf("%w: length %d", ErrBech32, len(s))
	}
	lower, upper := strings.ToLower(s), strings.ToUpper(s)
	if s != lower && s != upper {
		return "", nil, fmt.Errorf("%w: mixed case", ErrBech32)
	}
	s = lower
	pos := strings.LastIndexByte(s, '1')
	if pos < 1 || pos+7 > len(s) {
		return "", nil, fmt.Errorf("%w: separator", ErrBech32)
	}
	hrp = s[:pos]
	for i := 0; i < len(hrp); i++ {
		if hrp[i] < 33 || hrp[i] > 126 {
			return "", nil, fmt.Errorf("%w: hrp character", ErrBech32)
		}
	}
	vals := make([]byte, 0, len(s)-pos-1)
	for i := pos + 1; i < len(s); i++ {
		v := bech32Index[s[i]]
		if v < 0 {
			return "", nil, fmt.Errorf("%w: character %q", ErrBech32, s[i])
		}
		vals = append(vals, byte(v))
	}
	if bech32Polymod(append(hrpExpand(hrp), vals...)) != 1 {
		return "", nil, fmt.Errorf("%w: checksum", ErrBech32)
	}
	data, err = convertBits(vals[:len(vals)-6], 5, 8, false)
	if err != nil {
		return "", nil, err
	}
	return hrp, data, nil
}

// FormatBech32 returns addr as "<hrp>1...", without a chain prefix.
func FormatBech32(hrp string, addr ShortID) string {
	s, err := Bech32Encode(hrp, addr[:])
	if err != nil {
		// Only a malformed hrp fails; fall back to the network-neutral one.
		s, _ = Bech32Encode(avanet.FallbackHRP, addr[:])
	}
	return s
}

// FormatAddress returns addr as "<chain>-<hrp>1...", e.g. "X-fuji1...". An
// empty chain gives the bare bech32 form.
func FormatAddress(chain, hrp string, addr ShortID) string {
	if chain == "" {
		return FormatBech32(hrp, addr)
	}
	return chain + "-" + FormatBech32(hrp, addr)
}

// MaxAddressLen is the longest address ParseAddress reads: a chain alias of
// at most MaxIDLen characters (a blockchain id), "-" and a bech32 string of
// at most 90 characters (BIP 173).
const MaxAddressLen = MaxIDLen + 1 + 90

// ParseAddress decodes "<chain>-<hrp>1..." or "<hrp>1..." into its chain
// alias ("" when absent), hrp and short id. Strings over MaxAddressLen
// characters get ErrInputTooLong without being decoded.
func ParseAddress(s string) (chain, hrp string, addr ShortID, err error) {
	if len(s) > MaxAddressLen {
		return "", "", ShortID{}, fmt.Errorf("address %s: %w (%d characters, at most %d)", Clip(s), ErrInputTooLong, len(s), MaxAddressLen)
	}
	rest := s
	if i := strings.IndexByte(s, '-'); i >= 0 {
		chain, rest = s[:i], s[i+1:]
		if chain == "" {
			return "", "", ShortID{}, fmt.Errorf("address %q: empty chain alias", s)
		}
	}
	hrp, data, err := Bech32Decode(rest)
	if err != nil {
		return "", "", ShortID{}, fmt.Errorf("address %q: %w", s, err)
	}
	if len(data) != len(ShortID{}) {
		return "", "", ShortID{}, fmt.Errorf("address %q: %w", s, ErrLength)
	}
	return chain, hrp, ShortID(data), nil
}
