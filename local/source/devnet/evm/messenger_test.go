package evm

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// deploymentFile is MessengerDeployment as a file, for the scripts that
// deploy the messenger on other chains (test/sdk/icm-send.mjs), like the
// TeleporterMessenger's published deployment transaction.
const deploymentFile = "artifacts/IcmMessenger.deployment.json"

type deploymentJSON struct {
	Deployer       common.Address `json:"deployer"`
	Address        common.Address `json:"address"`
	Cost           string         `json:"cost"`
	RawTransaction hexutil.Bytes  `json:"rawTransaction"`
}

// TestMessengerDeploymentFile checks the committed deployment file against
// MessengerDeployment; AVAEDGE_UPDATE=1 rewrites it (after the contract
// changed).
func TestMessengerDeploymentFile(t *testing.T) {
	d := MessengerDeployment()
	want := deploymentJSON{Deployer: d.Deployer, Address: d.Address, Cost: d.Cost.String(), RawTransaction: d.Raw}
	if os.Getenv("AVAEDGE_UPDATE") != "" {
		b, _ := json.MarshalIndent(want, "", " ")
		if err := os.WriteFile(deploymentFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(deploymentFile)
	if err != nil {
		t.Fatal(err)
	}
	var got deploymentJSON
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.Deployer != want.Deployer || got.Address != want.Address || got.Cost != want.Cost || string(got.RawTransaction) != string(want.RawTransaction) {
		t.Fatalf("%s is stale (rerun with AVAEDGE_UPDATE=1): deployer %s, address %s; want %s, %s", deploymentFile, got.Deployer, got.Address, want.Deployer, want.Address)
	}
	// The transaction is keyless: no chain id, the sender recovered from
	// its fixed signature, the contract at the sender's first address.
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(d.Raw); err != nil {
		t.Fatal(err)
	}
	from, err := types.Sender(types.HomesteadSigner{}, tx)
	if tx.Protected() || err != nil || from != d.Deployer || crypto.CreateAddress(from, 0) != d.Address || tx.Nonce() != 0 {
		t.Fatalf("keyless deployment: protected %v, sender %s (%v), nonce %d", tx.Protected(), from, err, tx.Nonce())
	}
	if new(big.Int).Mul(tx.GasPrice(), new(big.Int).SetUint64(tx.Gas())).Cmp(d.Cost) != 0 {
		t.Fatalf("cost %s is not gas price times gas", d.Cost)
	}
}

// TestSeededMessenger: a chain with a blockchain id has the messenger at
// its keyless address, knowing that id, and the seeded message with its fee.
func TestSeededMessenger(t *testing.T) {
	self, dest := common.Hash{0x5e, 0x1f}, common.Hash{0xde, 0x57}
	c, err := New(context.Background(), Options{BlockchainID: self, ICMDestination: dest})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := c.Seed()
	m := mustArtifact(ContractMessenger)
	call := func(method string, args ...any) []any {
		t.Helper()
		data, err := m.Call(method, args...)
		if err != nil {
			t.Fatal(err)
		}
		var out hexutil.Bytes
		if err := c.Client().Call(&out, "eth_call", map[string]any{"to": s.Messenger, "data": hexutil.Bytes(data)}, "latest"); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		vals, err := m.ABI.Unpack(method, out)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return vals
	}
	if s.Messenger != MessengerDeployment().Address {
		t.Fatalf("messenger at %s; want %s", s.Messenger, MessengerDeployment().Address)
	}
	if id := call("blockchainID")[0].([32]byte); common.Hash(id) != self {
		t.Errorf("blockchainID %x; want %x", id, self)
	}
	if n := call("messageNonce")[0].(*big.Int); n.Int64() != 1 {
		t.Errorf("messageNonce %d; want 1", n)
	}
	if id := call("calculateMessageID", [32]byte(self), [32]byte(dest), big.NewInt(1))[0].([32]byte); common.Hash(id) != s.ICMMessage {
		t.Errorf("calculateMessageID %x; the seed says %x", id, s.ICMMessage)
	}
	fee := call("getFeeInfo", [32]byte(s.ICMMessage))
	if fee[0].(common.Address) != s.Token || fee[1].(*big.Int).Cmp(ether(1)) != 0 {
		t.Errorf("fee %v; want 1 ADT", fee)
	}
	// Without a blockchain id, no messenger.
	plain, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if plain.Seed().Messenger != (common.Address{}) {
		t.Errorf("a chain without a blockchain id has a messenger")
	}
}
