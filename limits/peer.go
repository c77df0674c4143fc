package limits

import (
	"hash/maphash"
	"net/netip"
	"sync/atomic"
)

// peers remembers the addresses of recent connections' peers by their
// remote address string: net/http gives every request of a connection the
// same RemoteAddr, so the requests after a connection's first parse
// nothing. Slots are replaced whole, so readers never see a torn pair; a
// connection whose slot another took is parsed again.
var peers peerTable

type peerTable struct {
	slots [peerSlots]atomic.Pointer[peer]
}

var peerSeed = maphash.MakeSeed()

const peerSlots = 1024 // a power of two

type peer struct {
	remote string
	addr   netip.Addr
}

// addr is the address of remote ("ip:port", or an address alone), mapped
// IPv4 unmapped; the zero Addr when it is neither.
func (t *peerTable) addr(remote string) netip.Addr {
	slot := &t.slots[maphash.String(peerSeed, remote)&(peerSlots-1)]
	if p := slot.Load(); p != nil && p.remote == remote {
		return p.addr
	}
	var a netip.Addr
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		a = ap.Addr().Unmap()
	} else if b, err := netip.ParseAddr(remote); err == nil {
		a = b.Unmap()
	}
	slot.Store(&peer{remote: remote, addr: a})
	return a
}
