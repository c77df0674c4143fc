package avalanchego

import (
	"context"
	"testing"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/codec"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/avm"
	avax "github.com/ava-labs/avalanchego/vms/components/avax"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"
	"github.com/ava-labs/avalanchego/wallet/chain/p"
	pbuilder "github.com/ava-labs/avalanchego/wallet/chain/p/builder"
	psigner "github.com/ava-labs/avalanchego/wallet/chain/p/signer"
	pwallet "github.com/ava-labs/avalanchego/wallet/chain/p/wallet"
	"github.com/ava-labs/avalanchego/wallet/chain/x"
	xbuilder "github.com/ava-labs/avalanchego/wallet/chain/x/builder"
	xsigner "github.com/ava-labs/avalanchego/wallet/chain/x/signer"
	walletcommon "github.com/ava-labs/avalanchego/wallet/subnet/primary/common"
)

// wallets are avalanchego's P- and X-Chain wallets over one UTXO set, built
// as wallet/subnet/primary.MakeWallet builds them but without its C-Chain
// wallet, whose coreth dependencies do not build beside the main module's
// go-ethereum.
type wallets struct {
	P pwallet.Wallet
	X x.Wallet
}

func makeWallets(t testing.TB, ctx context.Context, uri string, kc *secp256k1fx.Keychain) *wallets {
	t.Helper()
	infoClient := info.NewClient(uri)
	pClient := platformvm.NewClient(uri)
	xClient := avm.NewClient(uri, "X")
	pCTX, err := p.NewContextFromClients(ctx, infoClient, pClient)
	if err != nil {
		t.Fatalf("P context: %v", err)
	}
	xCTX, err := x.NewContextFromClients(ctx, infoClient, xClient)
	if err != nil {
		t.Fatalf("X context: %v", err)
	}
	utxos := walletcommon.NewUTXOs()
	addrs := kc.Addresses().List()
	chains := []struct {
		id    ids.ID
		fetch func(source string, startAddr ids.ShortID, startUTXO ids.ID) ([][]byte, ids.ShortID, ids.ID, error)
		codec codec.Manager
	}{
		{constants.PlatformChainID, func(s string, a ids.ShortID, u ids.ID) ([][]byte, ids.ShortID, ids.ID, error) {
			return pClient.GetAtomicUTXOs(ctx, addrs, s, 1024, a, u)
		}, txs.Codec},
		{xCTX.BlockchainID, func(s string, a ids.ShortID, u ids.ID) ([][]byte, ids.ShortID, ids.ID, error) {
			return xClient.GetAtomicUTXOs(ctx, addrs, s, 1024, a, u)
		}, xbuilder.Parser.Codec()},
	}
	for _, dst := range chains {
		for _, src := range chains {
			var startAddr ids.ShortID
			var startUTXO ids.ID
			for {
				page, endAddr, endUTXO, err := dst.fetch(src.id.String(), startAddr, startUTXO)
				if err != nil {
					t.Fatalf("UTXOs: %v", err)
				}
				for _, b := range page {
					var u avax.UTXO
					if _, err := dst.codec.Unmarshal(b, &u); err != nil {
						t.Fatalf("UTXO: %v", err)
					}
					if err := utxos.AddUTXO(ctx, src.id, dst.id, &u); err != nil {
						t.Fatal(err)
					}
				}
				if len(page) < 1024 {
					break
				}
				startAddr, startUTXO = endAddr, endUTXO
			}
		}
	}
	owners, err := platformvm.GetOwners(pClient, ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pBackend := pwallet.NewBackend(walletcommon.NewChainUTXOs(constants.PlatformChainID, utxos), owners)
	pw := pwallet.New(p.NewClient(pClient, pBackend), pbuilder.New(kc.Addresses(), pCTX, pBackend), psigner.New(kc, pBackend))
	xBackend := x.NewBackend(xCTX, walletcommon.NewChainUTXOs(xCTX.BlockchainID, utxos))
	xw := x.NewWallet(xbuilder.New(kc.Addresses(), xCTX, xBackend), xsigner.New(kc, xBackend), xClient, xBackend)
	return &wallets{P: pw, X: xw}
}
