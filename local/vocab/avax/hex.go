package avax

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// EncodeHex returns avalanchego's "hex" encoding: "0x" + hex(b ‖ last 4
// bytes of sha256(b)).
func EncodeHex(b []byte) string {
	c := checksum(b)
	out := make([]byte, 2+2*(len(b)+4))
	copy(out, "0x")
	hex.Encode(out[2:], b)
	hex.Encode(out[2+2*len(b):], c[:])
	return string(out)
}

// EncodeHexNC returns the "hexnc" encoding: "0x" + hex(b), no checksum.
func EncodeHexNC(b []byte) string { return "0x" + hex.EncodeToString(b) }

// DecodeHex reverses EncodeHex, checking the checksum. The 0x prefix is
// required, as avalanchego requires it.
func DecodeHex(s string) ([]byte, error) {
	raw, err := DecodeHexNC(s)
	if err != nil {
		return nil, err
	}
	if len(raw) < 4 {
		return nil, ErrChecksum
	}
	body := raw[:len(raw)-4]
	if c := checksum(body); string(c[:]) != string(raw[len(raw)-4:]) {
		return nil, ErrChecksum
	}
	return body, nil
}

// DecodeHexNC reverses EncodeHexNC: "0x" and hex, no checksum.
func DecodeHexNC(s string) ([]byte, error) {
	rest, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return nil, fmt.Errorf("hex: missing 0x prefix")
	}
	raw, err := hex.DecodeString(rest)
	if err != nil {
		return nil, fmt.Errorf("hex: %w", err)
	}
	return raw, nil
}
