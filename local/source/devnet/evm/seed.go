package evm

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// Seed records what seeding deployed. Every field is the same on every run.
type Seed struct {
	Token   common.Address // AvaToken (ERC-20 "ADT", 18 decimals)
	NFT     common.Address // AvaNFT (ERC-721 "ADN", ids 1..5)
	Multi   common.Address // AvaMulti (ERC-1155, ids 1..4)
	Factory common.Address // Factory
	// ChildCreate and ChildCreate2 are the Child contracts Factory deployed
	// with CREATE (tag 7, funded with 1 AVAX) and CREATE2 (tag 8, Salt).
	ChildCreate  common.Address
	ChildCreate2 common.Address
	Salt         common.Hash
	// Messenger is the ICM messenger (zero unless Options.BlockchainID is
	// set) and ICMMessage the id of the message the seed sent through it
	// to Options.ICMDestination: 1 ADT of fee offered, from ewoq to dev1.
	Messenger  common.Address
	ICMMessage common.Hash
	// Head is the last seeded block.
	Head uint64
}

// Fee caps of the seeded transactions.
var (
	seedTip    = big.NewInt(params.GWei)
	seedFeeCap = big.NewInt(50 * params.GWei)
)

// seeder signs transactions with locally tracked nonces.
type seeder struct {
	c      *Chain
	signer types.Signer
	nonces map[common.Address]uint64
}

func (s *seeder) tx(from Account, to *common.Address, value *big.Int, data []byte, gas uint64) *types.Transaction {
	n := s.nonces[from.Address]
	s.nonces[from.Address] = n + 1
	if value == nil {
		value = new(big.Int)
	}
	return types.MustSignNewTx(from.Key, s.signer, &types.DynamicFeeTx{
		ChainID:   s.c.chainID,
		Nonce:     n,
		GasTipCap: seedTip,
		GasFeeCap: seedFeeCap,
		Gas:       gas,
		To:        to,
		Value:     value,
		Data:      data,
	})
}

func (s *seeder) call(from Account, to common.Address, a *Artifact, method string, args ...any) (*types.Transaction, error) {
	data, err := a.Call(method, args...)
	if err != nil {
		return nil, err
	}
	return s.tx(from, &to, nil, data, 500_000), nil
}

// txBuild makes one transaction of a seeding step, when the step runs.
type txBuild func() (*types.Transaction, error)

// seedActivity deploys the contracts and runs the seeded transfers, one
// block per step (seedSteps), then the messenger's steps when the chain
// has a blockchain id (seedMessenger).
func (c *Chain) seedActivity(ctx context.Context) (*Seed, error) {
	s := &seeder{c: c, signer: types.LatestSignerForChainID(c.chainID), nonces: map[common.Address]uint64{}}
	seed := &Seed{Salt: crypto.Keccak256Hash([]byte("avaedge create2 salt"))}
	steps := s.seedSteps(seed)
	if c.opts.BlockchainID != (common.Hash{}) {
		more, err := c.seedMessenger(s, seed)
		if err != nil {
			return nil, err
		}
		for _, st := range more {
			bs := make([]txBuild, len(st))
			for i, f := range st {
				bs[i] = f
			}
			steps = append(steps, bs)
		}
	}
	for i, step := range steps {
		block, err := c.seedStep(ctx, step)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
		seed.Head = block
	}
	seed.ChildCreate = crypto.CreateAddress(seed.Factory, 1)
	childCode, err := mustArtifact(ContractChild).Deploy(big.NewInt(8))
	if err != nil {
		return nil, err
	}
	seed.ChildCreate2 = crypto.CreateAddress2(seed.Factory, seed.Salt, crypto.Keccak256(childCode))
	return seed, nil
}

// seedStep makes a step's transactions and sends them in one block, which
// it returns the number of; every transaction must succeed.
func (c *Chain) seedStep(ctx context.Context, step []txBuild) (uint64, error) {
	txs := make([]*types.Transaction, 0, len(step))
	for _, b := range step {
		tx, err := b()
		if err != nil {
			return 0, err
		}
		txs = append(txs, tx)
	}
	block, receipts, err := c.SendBlock(ctx, txs...)
	if err != nil {
		return 0, err
	}
	for j, r := range receipts {
		if r.Status != types.ReceiptStatusSuccessful {
			return 0, fmt.Errorf("tx %d (%s) reverted", j, r.TxHash)
		}
	}
	return block.NumberU64(), nil
}

// deploy makes ewoq's deployment of a, whose address it writes to dst.
func (s *seeder) deploy(ewoq Account, a *Artifact, dst *common.Address) txBuild {
	return func() (*types.Transaction, error) {
		data, err := a.Deploy()
		if err != nil {
			return nil, err
		}
		*dst = crypto.CreateAddress(ewoq.Address, s.nonces[ewoq.Address])
		return s.tx(ewoq, nil, nil, data, 3_000_000), nil
	}
}

// callAt makes from's call of method of a at *to, read when the step runs.
func (s *seeder) callAt(from Account, to *common.Address, a *Artifact, method string, args ...any) txBuild {
	return func() (*types.Transaction, error) { return s.call(from, *to, a, method, args...) }
}

// send makes from's transfer of v to to.
func (s *seeder) send(from Account, to common.Address, v *big.Int) txBuild {
	return func() (*types.Transaction, error) { return s.tx(from, &to, v, nil, 21_000), nil }
}

// bigs returns v as big integers.
func bigs(v ...int64) []*big.Int {
	out := make([]*big.Int, len(v))
	for i, x := range v {
		out[i] = big.NewInt(x)
	}
	return out
}

// seedSteps are the seeded transactions, a block a step: the contracts'
// deployments, native and token transfers, NFT and multi-token mints and
// transfers, the factory's CREATE and CREATE2 deployments. They write the
// contracts' addresses to seed.
func (s *seeder) seedSteps(seed *Seed) [][]txBuild {
	acc := s.c.accounts
	ewoq, dev1, dev2, dev3, dev4 := acc[0], acc[1], acc[2], acc[3], acc[4]
	tok, nft, multi, fac := mustArtifact(ContractToken), mustArtifact(ContractNFT), mustArtifact(ContractMulti), mustArtifact(ContractFactory)
	adt := ether
	half := new(big.Int).Div(ether(1), big.NewInt(2))
	return [][]txBuild{
		{s.deploy(ewoq, tok, &seed.Token), s.deploy(ewoq, nft, &seed.NFT), s.deploy(ewoq, multi, &seed.Multi), s.deploy(ewoq, fac, &seed.Factory)},
		{
			s.send(ewoq, dev1.Address, ether(10)),
			s.send(ewoq, dev2.Address, ether(5)),
			s.callAt(ewoq, &seed.Token, tok, "mint", ewoq.Address, adt(1_000_000)),
		},
		{
			s.callAt(ewoq, &seed.Token, tok, "transfer", dev1.Address, adt(1000)),
			s.callAt(ewoq, &seed.Token, tok, "transfer", dev2.Address, new(big.Int).Add(adt(250), half)),
			s.callAt(ewoq, &seed.NFT, nft, "mint", ewoq.Address),
			s.callAt(ewoq, &seed.NFT, nft, "mint", ewoq.Address),
			s.callAt(ewoq, &seed.NFT, nft, "mint", ewoq.Address),
			s.callAt(ewoq, &seed.NFT, nft, "mint", dev1.Address),
			s.callAt(ewoq, &seed.NFT, nft, "mint", dev2.Address),
		},
		{
			s.callAt(ewoq, &seed.NFT, nft, "transferFrom", ewoq.Address, dev1.Address, big.NewInt(1)),
			s.callAt(ewoq, &seed.NFT, nft, "safeTransferFrom", ewoq.Address, dev3.Address, big.NewInt(2)),
			s.callAt(dev1, &seed.Token, tok, "transfer", dev4.Address, adt(100)),
			s.callAt(ewoq, &seed.Multi, multi, "mint", ewoq.Address, big.NewInt(1), big.NewInt(100)),
			s.callAt(ewoq, &seed.Multi, multi, "mintBatch", ewoq.Address, bigs(2, 3, 4), bigs(10, 20, 30)),
		},
		{
			s.callAt(ewoq, &seed.Multi, multi, "safeTransferFrom", ewoq.Address, dev1.Address, big.NewInt(1), big.NewInt(5), []byte{}),
			s.callAt(ewoq, &seed.Multi, multi, "safeBatchTransferFrom", ewoq.Address, dev2.Address, bigs(2, 3), bigs(1, 2), []byte{}),
			s.send(dev1, dev4.Address, ether(1)),
		},
		{
			func() (*types.Transaction, error) {
				data, err := fac.Call("deploy", big.NewInt(7))
				if err != nil {
					return nil, err
				}
				return s.tx(ewoq, &seed.Factory, ether(1), data, 1_000_000), nil
			},
			func() (*types.Transaction, error) {
				data, err := fac.Call("deploy2", big.NewInt(8), [32]byte(seed.Salt))
				if err != nil {
					return nil, err
				}
				return s.tx(dev1, &seed.Factory, nil, data, 1_000_000), nil
			},
		},
		{
			s.callAt(dev1, &seed.Multi, multi, "safeTransferFrom", dev1.Address, dev3.Address, big.NewInt(1), big.NewInt(2), []byte{}),
			s.callAt(dev1, &seed.NFT, nft, "transferFrom", dev1.Address, dev2.Address, big.NewInt(4)),
		},
	}
}

// seedMessenger returns the steps that deploy the ICM messenger with its
// keyless transaction, give it the chain's blockchain id and, with a
// destination, send one message there.
func (c *Chain) seedMessenger(s *seeder, seed *Seed) ([][]func() (*types.Transaction, error), error) {
	ewoq, dev1 := c.accounts[0], c.accounts[1]
	d := MessengerDeployment()
	keyless := new(types.Transaction)
	if err := keyless.UnmarshalBinary(d.Raw); err != nil {
		return nil, fmt.Errorf("messenger deployment: %w", err)
	}
	seed.Messenger = d.Address
	m, tok := mustArtifact(ContractMessenger), mustArtifact(ContractToken)
	call := func(to common.Address, a *Artifact, method string, args ...any) func() (*types.Transaction, error) {
		return func() (*types.Transaction, error) { return s.call(ewoq, to, a, method, args...) }
	}
	// The token's address is known once the earlier steps ran.
	lazy := func(f func() func() (*types.Transaction, error)) func() (*types.Transaction, error) {
		return func() (*types.Transaction, error) { return f()() }
	}
	steps := [][]func() (*types.Transaction, error){
		// The deployer is funded a block before: each transaction of a
		// block is checked against the state before it.
		{func() (*types.Transaction, error) { return s.tx(ewoq, &d.Deployer, d.Cost, nil, 21_000), nil }},
		{func() (*types.Transaction, error) { return keyless, nil }},
		{call(d.Address, m, "setBlockchainID", [32]byte(c.opts.BlockchainID))},
	}
	dest := c.opts.ICMDestination
	if dest == (common.Hash{}) {
		return steps, nil
	}
	type fee struct {
		FeeTokenAddress common.Address
		Amount          *big.Int
	}
	type input struct {
		DestinationBlockchainID [32]byte
		DestinationAddress      common.Address
		FeeInfo                 fee
		RequiredGasLimit        *big.Int
		AllowedRelayerAddresses []common.Address
		Message                 []byte
	}
	steps = append(steps, []func() (*types.Transaction, error){
		lazy(func() func() (*types.Transaction, error) {
			return call(seed.Token, tok, "approve", d.Address, ether(1))
		}),
		lazy(func() func() (*types.Transaction, error) {
			return call(d.Address, m, "sendCrossChainMessage",
				input{dest, dev1.Address, fee{seed.Token, ether(1)}, big.NewInt(100_000), []common.Address{}, []byte("hello from the dev chain")})
		}),
	})
	seed.ICMMessage = crypto.Keccak256Hash(common.LeftPadBytes(d.Address.Bytes(), 32), c.opts.BlockchainID[:], dest[:], common.LeftPadBytes([]byte{1}, 32))
	return steps, nil
}

func latestSigner(c *Chain) types.Signer { return types.LatestSignerForChainID(c.chainID) }
