package avanet

import "testing"

func TestByName(t *testing.T) {
	tests := []struct {
		name   string
		want   uint32
		wantOK bool
	}{
		{"mainnet", 1, true},
		{"Mainnet", 1, true},
		{"fuji", 5, true},
		{"testnet", 5, true},
		{"local", 12345, true},
		{"network-12345", 12345, true},
		{"network-5", 5, true},
		{"network-99", 0, false},
		{"network-x", 0, false},
		{"devnet", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := ByName(tt.name)
			if ok != tt.wantOK || n.ID != tt.want {
				t.Fatalf("ByName(%q) = %d, %v; want %d, %v", tt.name, n.ID, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestNamesAndHRPs(t *testing.T) {
	tests := []struct {
		id                 uint32
		name, hrp, dataAPI string
	}{
		{1, "mainnet", "avax", "mainnet"},
		{5, "fuji", "fuji", "fuji"},
		{12345, "local", "local", ""},
		{99, "network-99", "custom", ""},
	}
	for _, tt := range tests {
		if got := Name(tt.id); got != tt.name {
			t.Errorf("Name(%d) = %q; want %q", tt.id, got, tt.name)
		}
		if got := HRP(tt.id); got != tt.hrp {
			t.Errorf("HRP(%d) = %q; want %q", tt.id, got, tt.hrp)
		}
		if got := DataAPIName(tt.id); got != tt.dataAPI {
			t.Errorf("DataAPIName(%d) = %q; want %q", tt.id, got, tt.dataAPI)
		}
	}
}

// TestIDsDistinct: no id of one network is another's, which code that maps
// an id back to its network relies on.
func TestIDsDistinct(t *testing.T) {
	seen := map[string]string{PChainID: "P-Chain"}
	for _, n := range All() {
		for what, id := range map[string]string{"X": n.XChainID, "C": n.CChainID, "AVAX": n.AVAXAssetID} {
			if prev, dup := seen[id]; dup {
				t.Errorf("%s %s of %s is also %s", what, id, n.Name, prev)
			}
			seen[id] = n.Name + " " + what
		}
	}
}

func TestResolveChain(t *testing.T) {
	tests := []struct {
		ref  string
		want Chain
		ok   bool
	}{
		{"P", ChainP, true}, {"platform", ChainP, true}, {"P-Chain", ChainP, true}, {PChainID, ChainP, true},
		{"x", ChainX, true}, {"AVM", ChainX, true}, {"x-chain", ChainX, true}, {Local.XChainID, ChainX, true}, {Fuji.XChainID, ChainX, true},
		{"c", ChainC, true}, {"evm", ChainC, true}, {Mainnet.CChainID, ChainC, true},
		{"d", "", false}, {"", "", false}, {Mainnet.AVAXAssetID, "", false},
	}
	for _, tt := range tests {
		if got, ok := ResolveChain(tt.ref); got != tt.want || ok != tt.ok {
			t.Errorf("ResolveChain(%q) = %q, %v; want %q, %v", tt.ref, got, ok, tt.want, tt.ok)
		}
	}
	for _, n := range All() {
		for _, c := range []Chain{ChainP, ChainX, ChainC} {
			if got, ok := n.ChainOf(n.ChainID(c)); got != c || !ok {
				t.Errorf("%s: ChainOf(ChainID(%s)) = %q, %v", n.Name, c, got, ok)
			}
		}
	}
	if _, ok := (Network{}).ChainOf(""); ok {
		t.Errorf("an empty id names a chain of a network without ids")
	}
	if got := ChainX.Alias(); got != "x-chain" {
		t.Errorf("ChainX.Alias() = %q", got)
	}
}
