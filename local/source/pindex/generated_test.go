package pindex

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// genBlock is a generated P-avanet.Chain block at height h with txs, after
// parent.
func genBlock(h uint64, parent string, txs ...map[string]any) *RawBlock {
	b := map[string]any{"id": avax.Hash256([]byte{byte(h), 'g'}).String(), "parentID": parent, "height": h, "time": 1000 + h, "txs": txs}
	if txs == nil {
		b["txs"] = []any{}
	}
	raw, _ := json.Marshal(b)
	return &RawBlock{Height: h, JSON: raw, Type: "BanffStandardBlock", Size: 100 + int(h)}
}

func idOfBlock(b *RawBlock) string {
	var j blockJSON
	json.Unmarshal(b.JSON, &j)
	return j.ID
}

// TestGenerated: an index no node fills (the devnet's) keeps appended
// blocks in memory, with their given types and sizes, pays the reward UTXOs
// a RewardValidatorTx carries (emitted by it, their ids the staking tx's),
// and stores the current validators it is given.
func TestGenerated(t *testing.T) { eachStore(t, testGenerated) }

func testGenerated(t *testing.T, store storeFor) {
	ctx := context.Background()
	net := avanet.Network{ID: 12345, Name: "local", HRP: "local", XChainID: fakeX.String(), CChainID: fakeC.String(), AVAXAssetID: fakeAVAX.String()}
	ix, err := Open(ctx, Options{Network: &net, Path: Memory, Store: store(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	addr := avax.FormatAddress("P", "local", owner)
	out := func(amount uint64) map[string]any {
		return map[string]any{"assetID": fakeAVAX.String(), "fxID": avax.SECP256K1FxID.String(),
			"output": map[string]any{"addresses": []string{addr}, "amount": amount, "locktime": 0, "threshold": 1}}
	}
	stakeTx := avax.Hash256([]byte("stake")).String()
	// The genesis staker: no inputs, one stake output.
	genesis, _ := json.Marshal(map[string]any{"id": stakeTx, "unsignedTx": map[string]any{"networkID": 12345, "blockchainID": avax.EmptyID.String(),
		"outputs": []any{}, "inputs": []any{}, "memo": "0x", "validator": map[string]any{"nodeID": "NodeID-111111111111111111116DBWJs", "start": 1000, "end": 1500, "weight": 5},
		"subnetID": avax.EmptyID.String(), "signer": map[string]any{"publicKey": "0x01", "proofOfPossession": "0x02"}, "stake": []any{out(5)},
		"validationRewardsOwner": map[string]any{"addresses": []string{addr}, "locktime": 0, "threshold": 1},
		"delegationRewardsOwner": map[string]any{"addresses": []string{addr}, "locktime": 0, "threshold": 1}, "shares": 20000}})
	b0 := genBlock(0, avax.EmptyID.String())
	b0.Genesis = []json.RawMessage{genesis}
	if err := ix.Append(ctx, avanet.ChainP, []*RawBlock{b0}); err != nil {
		t.Fatal(err)
	}
	// Stakes and CurrentValidators keep their answers until a write: read
	// them before the next block and list, to see that both change.
	if stakes, err := ix.Stakes(ctx); err != nil || len(stakes) != 1 || stakes[0].EndKind != "" || stakes[0].Rewards != nil {
		t.Fatalf("stakes before the reward %+v, %v", stakes, err)
	}
	if err := ix.SetCurrentValidators(ctx, PrimaryNetworkID, json.RawMessage(`{"validators":[{"nodeID":"NodeID-111111111111111111116DBWJs"}]}`)); err != nil {
		t.Fatal(err)
	}
	if body, _, ok, err := ix.CurrentValidators(ctx, PrimaryNetworkID); err != nil || !ok || !strings.Contains(string(body), "DBWJs") {
		t.Fatalf("current validators %s, %v, %v", body, ok, err)
	}
	rewardTx := avax.Hash256([]byte("reward")).String()
	stakeID, _ := avax.ParseID(stakeTx)
	b1 := genBlock(1, idOfBlock(b0), map[string]any{"id": rewardTx, "unsignedTx": map[string]any{"txID": stakeTx}})
	b1.Type = "BanffProposalBlock"
	b1.Paid = map[string][]Paid{rewardTx: {{Reward: "VALIDATOR", UTXO: avax.UTXO{TxID: stakeID, OutputIndex: 1, AssetID: fakeAVAX,
		Out: &avax.TransferOutput{Amt: 3, OutputOwners: avax.OutputOwners{Threshold: 1, Addrs: []avax.ShortID{owner}}}}}}}
	if err := ix.Append(ctx, avanet.ChainP, []*RawBlock{b1}); err != nil {
		t.Fatal(err)
	}

	if err := ix.Append(ctx, avanet.ChainP, []*RawBlock{genBlock(3, idOfBlock(b1))}); err == nil || !strings.Contains(err.Error(), "after height 1") {
		t.Errorf("a gap in heights: %v", err)
	}
	if err := ix.Append(ctx, avanet.ChainP, []*RawBlock{genBlock(2, stakeTx)}); err == nil || !strings.Contains(err.Error(), "names parent") {
		t.Errorf("a block after another parent: %v", err)
	}
	if h, ok := ix.Head(avanet.ChainP); !ok || h != 1 {
		t.Fatalf("head %d, %v; want 1", h, ok)
	}
	bs, err := ix.Blocks(ctx, avanet.ChainP, BlockRange{})
	if err != nil || len(bs) != 2 || bs[0].Type != "BanffProposalBlock" || bs[0].Size != 101 || bs[1].Txs == nil {
		t.Fatalf("blocks %+v, %v", bs, err)
	}
	emitted, consumed, err := ix.TxUTXOs(ctx, rewardTx)
	if err != nil || len(consumed) != 0 || len(emitted) != 1 || emitted[0].Reward != "VALIDATOR" || emitted[0].TxID != stakeTx ||
		emitted[0].EmittedBy != rewardTx || emitted[0].Amount != 3 {
		t.Fatalf("the reward tx emitted %+v (consumed %d), %v", emitted, len(consumed), err)
	}
	emitted, _, err = ix.TxUTXOs(ctx, stakeTx)
	if err != nil || len(emitted) != 1 || !emitted[0].Staked || emitted[0].Reward != "" {
		t.Fatalf("the staking tx emitted %+v, %v; want its stake output only", emitted, err)
	}
	txs, err := ix.Txs(ctx, avanet.ChainP, TxFilter{Addrs: []avax.ShortID{owner}})
	if err != nil || len(txs) != 2 || txs[0].ID != rewardTx || txs[0].Type != TxRewardValidator {
		t.Fatalf("txs of the owner %+v, %v; want the reward then the staking tx", txs, err)
	}
	stakes, err := ix.Stakes(ctx)
	if err != nil || len(stakes) != 1 || stakes[0].Rewards["VALIDATOR"] != 3 || stakes[0].EndKind != "completed" {
		t.Fatalf("stakes %+v, %v", stakes, err)
	}

	if err := ix.SetCurrentValidators(ctx, PrimaryNetworkID, json.RawMessage(`{"validators":[]}`)); err != nil {
		t.Fatal(err)
	}
	if body, _, ok, err := ix.CurrentValidators(ctx, PrimaryNetworkID); err != nil || !ok || string(body) != `{"validators":[]}` {
		t.Fatalf("current validators %s, %v, %v", body, ok, err)
	}
}
