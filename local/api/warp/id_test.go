package warp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// seq returns n bytes counting up from start: seq(1, 3) = 01 02 03.
func seq(start byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)
	}
	return b
}

func TestParseID(t *testing.T) {
	if got := avax.CB58Encode([]byte{0, 1, 2}); got != "1WByTYt3" {
		t.Fatalf("avax.CB58Encode(000102) = %s; want 1WByTYt3", got)
	}
	if got := nodeIDString([20]byte([]byte("abcdefghijklmnopqrst"))); got != "NodeID-9svQk6dYpuVvADYURdidi4PaSqtBkKpN8" {
		t.Fatalf("nodeIDString = %s", got)
	}
	if got := avax.CB58Encode(make([]byte, 32)); got != "11111111111111111111111111111111LpoYY" {
		t.Fatalf("empty id = %s", got)
	}
	tests := []struct {
		in   string
		want [32]byte
		ok   bool
	}{
		{"11111111111111111111111111111111LpoYY", [32]byte{}, true},
		{"0x" + strings.Repeat("ab", 32), [32]byte(bytes.Repeat([]byte{0xab}, 32)), true},
		{strings.Repeat("AB", 32), [32]byte(bytes.Repeat([]byte{0xab}, 32)), true},
		{avax.CB58Encode(seq(1, 32)), [32]byte(seq(1, 32)), true},
		{"11111111111111111111111111111111LpoYZ", [32]byte{}, false}, // checksum
		{"1WByTYt3", [32]byte{}, false},                              // 3 bytes
		{"0x" + strings.Repeat("ab", 31), [32]byte{}, false},
		{"", [32]byte{}, false},
		{"0OIl", [32]byte{}, false},
	}
	for _, tt := range tests {
		got, err := parseID(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("parseID(%q) = %x, %v; want %x, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
