package evm

import (
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// ContractMessenger is avaedge's ICM messenger (contracts/IcmMessenger.sol):
// it sends messages as the TeleporterMessenger does, with its events.
const ContractMessenger = "IcmMessenger"

// KeylessDeployment is a contract creation signed by nobody's key (Nick's
// method): its signature is fixed and the sender recovered from it, so the
// same raw transaction deploys the contract at the same address on every
// EVM chain that accepts transactions without a chain id. Fund Deployer
// with exactly Cost, then send Raw.
type KeylessDeployment struct {
	Raw      []byte
	Deployer common.Address
	Address  common.Address
	Cost     *big.Int // gas price times gas limit
}

// Gas of the messenger's keyless deployment: a legacy transaction at 100
// gwei, enough for any Avalanche EVM chain's base fee, with room above the
// creation's cost (about 800,000 gas).
const (
	messengerGas      = 1_500_000
	messengerGasPrice = 100 * params.GWei
)

// MessengerDeployment returns the keyless deployment of IcmMessenger. Its
// signature's r is the first of keccak256("avaedge IcmMessenger", i), i =
// 0, 1, ..., from which a sender can be recovered; s is fixed. Anyone can
// rebuild it from the committed artifact.
var MessengerDeployment = sync.OnceValue(func() KeylessDeployment {
	a := mustArtifact(ContractMessenger)
	unsigned := types.NewTx(&types.LegacyTx{Nonce: 0, GasPrice: big.NewInt(messengerGasPrice), Gas: messengerGas, Data: a.Bytecode})
	s := common.HexToHash("0x2222222222222222222222222222222222222222222222222222222222222222")
	signer := types.HomesteadSigner{}
	for i := 0; ; i++ {
		r := crypto.Keccak256([]byte("avaedge IcmMessenger"), []byte{byte(i >> 8), byte(i)})
		sig := append(append(r, s[:]...), 0)
		tx, err := unsigned.WithSignature(signer, sig)
		if err != nil {
			panic(fmt.Sprintf("evm: messenger deployment: %v", err))
		}
		from, err := types.Sender(signer, tx)
		if err != nil {
			continue
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			panic(fmt.Sprintf("evm: messenger deployment: %v", err))
		}
		return KeylessDeployment{Raw: raw, Deployer: from, Address: crypto.CreateAddress(from, 0),
			Cost: new(big.Int).Mul(big.NewInt(messengerGasPrice), big.NewInt(messengerGas))}
	}
})
