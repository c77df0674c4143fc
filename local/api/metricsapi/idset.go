package metricsapi

import (
	"slices"
	"strings"
)

// interner numbers addresses so that sets hold 4-byte ids instead of
// strings. Ids are shared by every chain (an address is the same account on
// every EVM chain), which makes cross-chain unions exact. Ids are never
// freed: an address rolled back by a re-org keeps its id. Not safe for
// concurrent use; the Engine's lock guards it.
type interner struct {
	ids   map[string]uint32
	names []string // names[id] is the lower-case address
}

// id returns the id of the address a, lower-cased first.
func (in *interner) id(a string) uint32 {
	if id, ok := in.ids[a]; ok {
		return id
	}
	if l := strings.ToLower(a); l != a {
		if id, ok := in.ids[l]; ok {
			return id
		}
		a = l
	}
	id := uint32(len(in.names))
	in.ids[a] = id
	in.names = append(in.names, a)
	return id
}

// idset is an exact set of address ids. While its bucket is the newest one
// it is a map; once a later bucket starts it is sealed into a sorted slice
// (4 bytes an address). Adding to a sealed set reopens it. The zero value is
// an empty set. Not safe for concurrent use.
type idset struct {
	m map[uint32]struct{}
	s []uint32
}

func (s *idset) add(id uint32) {
	if s.m == nil {
		s.m = make(map[uint32]struct{}, len(s.s)+1)
		for _, v := range s.s {
			s.m[v] = struct{}{}
		}
		s.s = nil
	}
	s.m[id] = struct{}{}
}

func (s *idset) len() int {
	if s.m != nil {
		return len(s.m)
	}
	return len(s.s)
}

// seal turns the set into its compact sorted form.
func (s *idset) seal() {
	if s.m == nil {
		return
	}
	out := make([]uint32, 0, len(s.m))
	for v := range s.m {
		out = append(out, v)
	}
	slices.Sort(out)
	s.s, s.m = out, nil
}

// addTo adds the members of s to u.
func (s *idset) addTo(u map[uint32]struct{}) {
	if s.m != nil {
		for v := range s.m {
			u[v] = struct{}{}
		}
		return
	}
	for _, v := range s.s {
		u[v] = struct{}{}
	}
}
