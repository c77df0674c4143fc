package limits

import (
	"fmt"
	"net/netip"
	"testing"
)

// TestPeers: the remembered address is the parsed one, whatever slots
// connections share, and a remembered one costs no allocation.
func TestPeers(t *testing.T) {
	tests := []struct{ remote, want string }{
		{"192.0.2.1:5", "192.0.2.1"},
		{"[2001:db8::1]:443", "2001:db8::1"},
		{"[::ffff:192.0.2.9]:80", "192.0.2.9"},
		{"[fe80::1%eth0]:80", "fe80::1%eth0"},
		{"198.51.100.3", "198.51.100.3"},
		{"@", "invalid IP"},
		{"", "invalid IP"},
	}
	var tbl peerTable
	for round := range 2 { // parsed, then remembered
		for _, tt := range tests {
			if got := tbl.addr(tt.remote).String(); got != tt.want {
				t.Errorf("round %d: addr(%q) = %s; want %s", round, tt.remote, got, tt.want)
			}
		}
	}
	// Ten times more connections than slots: each answer is still its own.
	for i := range 10 * peerSlots {
		remote := fmt.Sprintf("10.%d.%d.1:%d", i>>8&255, i&255, 1000+i)
		want := netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 1})
		if got := tbl.addr(remote); got != want {
			t.Fatalf("addr(%q) = %s; want %s", remote, got, want)
		}
	}
	remote := "203.0.113.5:40000"
	tbl.addr(remote)
	if a := testing.AllocsPerRun(100, func() { tbl.addr(remote) }); a != 0 {
		t.Fatalf("a remembered peer: %v allocations; want 0", a)
	}
}
