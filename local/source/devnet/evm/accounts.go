package evm

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// EwoqKey is avalanchego's well-known local test key "ewoq", funded in the
// local network's genesis; its address is
// 0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC.
const EwoqKey = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// Account is a pre-funded dev account with its private key.
type Account struct {
	Name    string
	Key     *ecdsa.PrivateKey
	Address common.Address
}

// NumAccounts is how many accounts DevAccounts returns: ewoq and five others.
const NumAccounts = 6

// DevAccounts returns the deterministic pre-funded accounts: ewoq first, then
// "dev1".."dev5" whose keys are keccak256("avaedge dev account <i>").
func DevAccounts() []Account {
	out := make([]Account, 0, NumAccounts)
	ewoq, err := crypto.HexToECDSA(EwoqKey)
	if err != nil {
		panic(err) // a constant
	}
	out = append(out, Account{Name: "ewoq", Key: ewoq, Address: crypto.PubkeyToAddress(ewoq.PublicKey)})
	for i := 1; i < NumAccounts; i++ {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("avaedge dev account %d", i))))
		if err != nil {
			panic(err) // a valid scalar for these constants
		}
		out = append(out, Account{Name: fmt.Sprintf("dev%d", i), Key: k, Address: crypto.PubkeyToAddress(k.PublicKey)})
	}
	return out
}

// ether returns n * 10^18.
func ether(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18))
}

// Genesis balances: ewoq holds 50,000,000 AVAX as on avalanchego's local
// C-chain; every other dev account 1,000,000.
var (
	ewoqBalance = ether(50_000_000)
	devBalance  = ether(1_000_000)
)
