package local

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/avaedge/avaedge/local/source/devnet/evm"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// icmChain is how the EVM index follows a chain's ICM: every indexed chain
// reads the events of the published TeleporterMessenger and of avaedge's
// own messenger (the same keyless deployment on every chain; the devnet's
// embedded chains, which have no Warp precompile, run it), with its
// blockchain id (cb58, when it is one) as the source of the messages it
// sends.
func icmChain(c evmindex.ChainOptions, blockchainID string) evmindex.ChainOptions {
	c.TeleporterAddresses = []common.Address{evmindex.TeleporterMessenger, evm.MessengerDeployment().Address}
	if b, err := avax.CB58Decode(blockchainID); err == nil && len(b) == common.HashLength {
		c.BlockchainID = common.BytesToHash(b)
	}
	return c
}
