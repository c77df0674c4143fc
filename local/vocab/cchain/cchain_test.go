package cchain

import "testing"

func TestResolve(t *testing.T) {
	a := &Aliases{Target: 43112, BlockchainID: "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC"}
	other := &Aliases{Target: 99999, BlockchainID: "otherDevnetCChainID"}
	for _, tc := range []struct {
		name      string
		a         *Aliases
		requested string
		want      ID
		ok        bool
	}{
		{"mainnet evm id", a, "43114", Mainnet, true},
		{"mainnet blockchain id", a, "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5", Mainnet, true},
		{"fuji evm id", a, "43113", Fuji, true},
		{"fuji blockchain id", a, "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp", Fuji, true},
		{"local evm id", a, "43112", Local, true},
		{"local blockchain id", a, "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC", Local, true},
		{"a target of its own", other, "99999", ID{99999, "otherDevnetCChainID", "local"}, true},
		{"a target's own blockchain id", other, "otherDevnetCChainID", ID{99999, "otherDevnetCChainID", "local"}, true},
		{"local ids beside another target", other, "43112", Local, true},
		{"another chain", a, "43111", ID{}, false},
		{"a leading zero is another string", a, "043114", ID{}, false},
		{"a blockchain id in another case", a, "2Q9E4R6MU3U68NU1FYJGBR6JVWRX36COHPAX5UQXSE55X1Q5", ID{}, false},
		{"empty", a, "", ID{}, false},
		{"nil aliases", nil, "43114", ID{}, false},
		{"no target", &Aliases{}, "43114", ID{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.a.Resolve(tc.requested)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("Resolve(%q) = %+v, %v; want %+v, %v", tc.requested, got, ok, tc.want, tc.ok)
			}
		})
	}
}
