package e2e

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ethcommon "github.com/ava-labs/libevm/common"
	"github.com/ava-labs/libevm/core/types"
	"github.com/ava-labs/libevm/crypto"
)

// The TeleporterMessenger's published keyless deployer and contract address
// (release v1.0.0 of ava-labs/icm-contracts).
var (
	teleporterDeployer = ethcommon.HexToAddress("0x618FEdD9A45a8C456812ecAAE70C671c6249DfaC")
	teleporterAddress  = ethcommon.HexToAddress("0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf")
)

// keylessDeployment is a contract creation signed by nobody's key, as
// test/sdk/icm-send.mjs reads it: fund Deployer with exactly Cost, then
// send RawTransaction; the contract is at Address.
type keylessDeployment struct {
	Deployer       ethcommon.Address `json:"deployer"`
	Address        ethcommon.Address `json:"address"`
	Cost           string            `json:"cost"` // wei, decimal
	RawTransaction string            `json:"rawTransaction"`
	hash           ethcommon.Hash
}

// officialTeleporter reads the TeleporterMessenger's official deployment
// transaction (testdata/TeleporterMessenger_Deployment_Transaction_v1.0.0.txt:
// "#" lines of provenance, then the raw transaction in hex) and checks it is
// what was published: a keyless legacy creation (nonce 0, no chain id, gas
// 4,000,000 at 2,500 gwei, nothing sent) from the published deployer,
// creating the published address.
func officialTeleporter() (keylessDeployment, error) {
	b, err := os.ReadFile(filepath.Join("testdata", "TeleporterMessenger_Deployment_Transaction_v1.0.0.txt"))
	if err != nil {
		return keylessDeployment{}, err
	}
	var hexTx string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			hexTx += line
		}
	}
	return checkTeleporterDeployment(hexTx)
}

// checkTeleporterDeployment decodes the raw transaction hexTx and checks
// it is the TeleporterMessenger's official deployment.
func checkTeleporterDeployment(hexTx string) (keylessDeployment, error) {
	raw, err := hex.DecodeString(strings.TrimPrefix(hexTx, "0x"))
	if err != nil {
		return keylessDeployment{}, fmt.Errorf("the deployment transaction: %w", err)
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return keylessDeployment{}, fmt.Errorf("the deployment transaction: %w", err)
	}
	v, r, s := tx.RawSignatureValues()
	rs := new(big.Int).SetBytes(bytes.Repeat([]byte{0x33}, 32))
	if tx.Type() != types.LegacyTxType || tx.Protected() || v.Uint64() != 27 || r.Cmp(rs) != 0 || s.Cmp(rs) != 0 ||
		tx.Nonce() != 0 || tx.To() != nil || tx.Value().Sign() != 0 || tx.Gas() != 4_000_000 ||
		tx.GasPrice().Cmp(big.NewInt(2500e9)) != 0 {
		return keylessDeployment{}, fmt.Errorf("the deployment transaction is not the keyless creation published (type %d, v %v, nonce %d, to %v, value %v, gas %d at %v)",
			tx.Type(), v, tx.Nonce(), tx.To(), tx.Value(), tx.Gas(), tx.GasPrice())
	}
	from, err := types.HomesteadSigner{}.Sender(&tx)
	if err != nil {
		return keylessDeployment{}, fmt.Errorf("the deployment transaction's sender: %w", err)
	}
	if created := crypto.CreateAddress(from, 0); from != teleporterDeployer || created != teleporterAddress {
		return keylessDeployment{}, fmt.Errorf("the deployment transaction is sent by %s, creating %s; published: %s, creating %s",
			from, created, teleporterDeployer, teleporterAddress)
	}
	cost := new(big.Int).Mul(tx.GasPrice(), new(big.Int).SetUint64(tx.Gas()))
	return keylessDeployment{Deployer: from, Address: teleporterAddress, Cost: cost.String(), RawTransaction: "0x" + hex.EncodeToString(raw), hash: tx.Hash()}, nil
}

// writeDeployment writes d where icm-send.mjs reads it and returns the
// file's path.
func writeDeployment(t *testing.T, d keylessDeployment) string {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "deployment.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTeleporterDeploymentTransaction: the committed transaction recovers
// the published deployer and creates the published address, at a cost of
// exactly 10 AVAX (4,000,000 gas at 2,500 gwei); a transaction with one byte of its code changed, or a
// different signature, does not pass.
func TestTeleporterDeploymentTransaction(t *testing.T) {
	d, err := officialTeleporter()
	if err != nil {
		t.Fatal(err)
	}
	if d.Deployer != teleporterDeployer || d.Address != teleporterAddress || d.Cost != "10000000000000000000" {
		t.Fatalf("official deployment: %+v", d)
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(ethcommon.FromHex(d.RawTransaction)); err != nil {
		t.Fatal(err)
	}
	v, r, s := tx.RawSignatureValues()
	code := tx.Data()
	code[len(code)/2] ^= 1
	changed := types.NewTx(&types.LegacyTx{Nonce: tx.Nonce(), Gas: tx.Gas(), GasPrice: tx.GasPrice(), Value: tx.Value(), Data: code, V: v, R: r, S: s})
	resigned := types.NewTx(&types.LegacyTx{Nonce: tx.Nonce(), Gas: tx.Gas(), GasPrice: tx.GasPrice(), Value: tx.Value(), Data: tx.Data(),
		V: v, R: new(big.Int).Add(r, big.NewInt(1)), S: s})
	for name, other := range map[string]*types.Transaction{"a byte of code changed": changed, "another signature": resigned} {
		b, err := other.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := checkTeleporterDeployment(hex.EncodeToString(b)); err == nil {
			t.Errorf("%s: accepted as the official deployment", name)
		}
	}
}
