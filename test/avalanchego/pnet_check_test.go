package avalanchego

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/formatting/address"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/platformvm"

	"github.com/avaedge/avaedge/local/source/pindex"
)

// check compares the index's answers with what the test issued and with the
// node's own answers, and returns the bodies of snapshotURLs.
func check(t *testing.T, uri, base string, ix *pindex.Index, in *issued) [][]byte {
	t.Helper()
	ctx := context.Background()
	n := ix.Network()
	xID, pID := n.XChainID, constants.PlatformChainID.String()
	local := func(a ids.ShortID) string { s, _ := address.FormatBech32("local", a[:]); return s }

	// Transactions and their blocks, as stored.
	wantTypes := map[ids.ID]string{in.xTransfer: "BaseTx", in.asset: "CreateAssetTx", in.export: "ExportTx", in.imp: "ImportTx",
		in.subnet: "CreateSubnetTx", in.chain: "CreateChainTx", in.convert: "ConvertSubnetToL1Tx"}
	for id, typ := range wantTypes {
		tx, ok, err := ix.Tx(ctx, id.String())
		if err != nil || !ok {
			t.Fatalf("tx %s not indexed (%v)", id, err)
		}
		if tx.Type != typ || tx.Height != in.heights[id] || tx.Time != in.times[id] {
			t.Errorf("tx %s: type %s height %d time %d; want %s %d %d", id, tx.Type, tx.Height, tx.Time, typ, in.heights[id], in.times[id])
		}
		b, ok, err := ix.Block(ctx, tx.Chain, tx.Height)
		if err != nil || !ok || !slices.Contains(b.Txs, id.String()) {
			t.Errorf("block %s/%d does not list tx %s: %+v (%v)", tx.Chain, tx.Height, id, b, err)
		}
	}

	// X-Chain UTXOs of r1: exactly the node's, byte for byte.
	page, got := indexUTXOs(t, base, "x-chain", in.r1.Address(), false)
	if want := nodeUTXOs(t, uri, "X", "", in.r1.Address()); !slices.Equal(got, want) || len(got) != 2 {
		t.Fatalf("x-chain UTXOs of r1:\n%v\nnode has\n%v", got, want)
	}
	for _, u := range page.UTXOs {
		switch u.CreationTxHash {
		case in.xTransfer.String():
			if u.Asset.Amount != strconv.FormatUint(units.Avax, 10) || u.Asset.Symbol != "AVAX" || u.Asset.AssetID != n.AVAXAssetID {
				t.Errorf("transfer UTXO asset = %+v", u.Asset)
			}
		case in.asset.String():
			if u.Asset.Amount != "100000" || u.Asset.Name != "Avaedge Test Token" || u.Asset.Symbol != "AETT" ||
				u.Asset.Denomination != 2 || u.Asset.AssetID != in.asset.String() {
				t.Errorf("new asset UTXO asset = %+v", u.Asset)
			}
		default:
			t.Errorf("unexpected x-chain UTXO of r1 created by %s", u.CreationTxHash)
		}
		if u.CreatedOnChainID != xID || u.ConsumedOnChainID != xID || !slices.Equal(u.Addresses, []string{local(in.r1.Address())}) {
			t.Errorf("x-chain UTXO %s: created on %s, consumed on %s, addresses %v", u.UTXOID, u.CreatedOnChainID, u.ConsumedOnChainID, u.Addresses)
		}
	}

	// P-Chain UTXOs of r2: the atomic UTXO the X-Chain exported, spent by
	// the import; the imported UTXO unspent, as the node has it.
	page, got = indexUTXOs(t, base, "p-chain", in.r2.Address(), true)
	if want := nodeUTXOs(t, uri, "P", "", in.r2.Address()); !slices.Equal(got, want) || len(got) != 1 {
		t.Fatalf("p-chain UTXOs of r2:\n%v\nnode has\n%v", got, want)
	}
	if left := nodeUTXOs(t, uri, "P", "X", in.r2.Address()); len(left) != 0 {
		t.Fatalf("the node still has atomic UTXOs for r2: %v", left)
	}
	if len(page.UTXOs) != 2 {
		t.Fatalf("p-chain UTXOs of r2 with spent ones: %d; want 2", len(page.UTXOs))
	}
	for _, u := range page.UTXOs {
		switch u.TxHash {
		case in.export.String():
			if u.CreatedOnChainID != xID || u.ConsumedOnChainID != pID || u.ConsumingTxHash != in.imp.String() ||
				u.Asset.Amount != strconv.FormatUint(2*units.Avax, 10) || u.BlockNumber != strconv.FormatUint(in.heights[in.export], 10) {
				t.Errorf("atomic UTXO: %+v", u)
			}
		case in.imp.String():
			amount, _ := strconv.ParseUint(u.Asset.Amount, 10, 64)
			if u.CreatedOnChainID != pID || u.ConsumingTxHash != "" || amount >= 2*units.Avax || amount < units.Avax ||
				u.BlockNumber != strconv.FormatUint(in.heights[in.imp], 10) {
				t.Errorf("imported UTXO: %+v", u)
			}
		default:
			t.Errorf("unexpected p-chain UTXO of r2 made by %s", u.TxHash)
		}
	}

	// The subnet, converted to an L1, with its chain.
	var s struct {
		SubnetID                    string
		CreateBlockIndex            string
		CreateBlockTimestamp        int64
		OwnerAddresses              []string
		Threshold                   int
		IsL1                        bool
		L1ConversionTransactionHash string
		L1ValidatorManagerDetails   struct{ BlockchainID, ContractAddress string }
		Blockchains                 []struct {
			BlockchainID, VMID, SubnetID, BlockchainName, CreateBlockNumber string
			EVMChainID                                                      uint64
		}
	}
	getJSON(t, base+"/v1/networks/fuji/subnets/"+in.subnet.String(), &s)
	if s.SubnetID != in.subnet.String() || s.CreateBlockIndex != strconv.FormatUint(in.heights[in.subnet], 10) ||
		s.CreateBlockTimestamp != in.times[in.subnet] || !slices.Equal(s.OwnerAddresses, []string{local(in.r3.Address())}) || s.Threshold != 1 ||
		!s.IsL1 || s.L1ConversionTransactionHash != in.convert.String() || s.L1ValidatorManagerDetails.BlockchainID != in.chain.String() ||
		s.L1ValidatorManagerDetails.ContractAddress != "0x00000000000000000000000000000000000a7a3e" || len(s.Blockchains) != 1 {
		t.Fatalf("subnet: %+v", s)
	}
	if c := s.Blockchains[0]; c.BlockchainID != in.chain.String() || c.VMID != constants.EVMID.String() || c.SubnetID != in.subnet.String() ||
		c.BlockchainName != "avaedgechain" || c.EVMChainID != 99999 || c.CreateBlockNumber != strconv.FormatUint(in.heights[in.chain], 10) {
		t.Fatalf("blockchain: %+v", c)
	}
	var list struct{ Subnets []struct{ SubnetID string } }
	getJSON(t, base+"/v1/networks/fuji/subnets", &list)
	if len(list.Subnets) != 1 || list.Subnets[0].SubnetID != in.subnet.String() {
		t.Fatalf("subnets: %+v", list)
	}

	// Validators: the L1's, and the primary network's as the node lists them.
	type validator struct {
		TxHash, NodeID, SubnetID, AmountStaked, ValidationStatus string
	}
	var vals struct{ Validators []validator }
	getJSON(t, base+"/v1/networks/fuji/validators?subnetId="+in.subnet.String(), &vals)
	if len(vals.Validators) != 1 || vals.Validators[0] != (validator{in.convert.String(), in.nodeID.String(), in.subnet.String(), "100", "active"}) {
		t.Fatalf("L1 validators: %+v", vals)
	}
	current, err := platformvm.NewClient(uri).GetCurrentValidators(ctx, constants.PrimaryNetworkID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []validator
	for _, v := range current {
		want = append(want, validator{v.TxID.String(), v.NodeID.String(), constants.PrimaryNetworkID.String(), strconv.FormatUint(v.Weight, 10), "active"})
	}
	getJSON(t, base+"/v1/networks/fuji/validators?pageSize=100&subnetId="+constants.PrimaryNetworkID.String(), &vals)
	byTx := func(a, b validator) int { return cmpStr(a.TxHash, b.TxHash) }
	slices.SortFunc(want, byTx)
	slices.SortFunc(vals.Validators, byTx)
	if len(want) == 0 || !slices.Equal(vals.Validators, want) {
		t.Fatalf("primary validators:\n%+v\nnode has\n%+v", vals.Validators, want)
	}

	// The chains each address has touched.
	var chains struct {
		Addresses []struct {
			Address       string
			BlockchainIDs []string
		}
	}
	a1, _ := address.Format("X", "fuji", in.r1.Address().Bytes())
	a2, _ := address.Format("P", "local", in.r2.Address().Bytes())
	getJSON(t, base+"/v1/networks/fuji/addresses:listChainIds?addresses="+a1+","+a2, &chains)
	fujiX := "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm" // the SDK's enum has no local ids
	if len(chains.Addresses) != 2 || !slices.Equal(chains.Addresses[0].BlockchainIDs, []string{fujiX}) ||
		!slices.Equal(chains.Addresses[1].BlockchainIDs, []string{pID}) {
		t.Fatalf("chain ids: %+v", chains)
	}

	var out [][]byte
	for _, url := range snapshotURLs(in) {
		out = append(out, getJSON(t, base+url, nil))
	}
	return out
}

func cmpStr(a, b string) int {
	s := []string{a, b}
	if a == b {
		return 0
	}
	if sort.StringsAreSorted(s) {
		return -1
	}
	return 1
}
