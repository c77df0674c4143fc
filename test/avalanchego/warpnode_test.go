package avalanchego

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/bls"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformnetwork "github.com/ava-labs/avalanchego/vms/platformvm/network"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	avawarp "github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaedge/avaedge/local/source/acp118"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// conversion is an L1 a test converted on its own node.
type conversion struct {
	subnet, chain, tx ids.ID
	nodeID            ids.NodeID
	conversionID      ids.ID
}

// convertL1 issues CreateSubnet, CreateChain and ConvertSubnetToL1 with the
// node as the L1's only validator, weight 100.
func convertL1(t testing.TB, uri string) *conversion {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	w := makeWallets(t, ctx, uri, secp256k1fx.NewKeychain(genesis.EWOQKey, key))
	owner := &secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}}
	c := &conversion{}
	tx, err := w.P.IssueCreateSubnetTx(owner)
	if err != nil {
		t.Fatalf("CreateSubnetTx: %v", err)
	}
	c.subnet = tx.ID()
	tx, err = w.P.IssueCreateChainTx(c.subnet, []byte(`{"config":{"chainId":99998},"alloc":{}}`), constants.EVMID, nil, "warpchain")
	if err != nil {
		t.Fatalf("CreateChainTx: %v", err)
	}
	c.chain = tx.ID()
	nodeID, pop, err := info.NewClient(uri).GetNodeID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.nodeID = nodeID
	manager, _ := hex.DecodeString("00000000000000000000000000000000000a7a3e")
	pown := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{key.Address()}}
	tx, err = w.P.IssueConvertSubnetToL1Tx(c.subnet, c.chain, manager, []*txs.ConvertSubnetToL1Validator{{
		NodeID: nodeID.Bytes(), Weight: 100, Balance: units.Avax, Signer: *pop,
		RemainingBalanceOwner: pown, DeactivationOwner: pown,
	}})
	if err != nil {
		t.Fatalf("ConvertSubnetToL1Tx: %v", err)
	}
	c.tx = tx.ID()
	s, err := platformvm.NewClient(uri).GetSubnet(ctx, c.subnet)
	if err != nil {
		t.Fatal(err)
	}
	c.conversionID = s.ConversionID
	return c
}

// TestACP118Direct asks a real node over the p2p protocol with acp118.Dial:
// the P-Chain signs the conversion message and refuses another conversion
// id with an AppError; the C-Chain signs the hash of an accepted block. Each
// signature verifies under the node's BLS key with avalanchego's bls.
func TestACP118Direct(t *testing.T) {
	n := startNode(t)
	conv := convertL1(t, n.URI)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ic := info.NewClient(n.URI)
	netID, err := ic.GetNetworkID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id, err := acp118.NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(n.stakePort))
	start := time.Now()
	p, err := acp118.Dial(ctx, addr, avax.NodeID(conv.nodeID), id, acp118.PeerOptions{
		NetworkID: netID, Client: acp118.Version{Name: "avalanchego", Major: 1, Minor: 14, Patch: 2}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer p.Close()
	t.Logf("handshake in %v; peer %+v", time.Since(start), p.Version())
	addressed, err := payload.NewAddressedCall(nil, must(message.NewSubnetToL1Conversion(conv.conversionID)).Bytes())
	if err != nil {
		t.Fatal(err)
	}
	unsigned, err := avawarp.NewUnsignedMessage(netID, constants.PlatformChainID, addressed.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	sig, err := p.Sign(ctx, constants.PlatformChainID, unsigned.Bytes(), conv.subnet[:])
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	t.Logf("signature in %v", time.Since(start))
	s, err := bls.SignatureFromBytes(sig)
	if err != nil {
		t.Fatal(err)
	}
	_, pop, _ := ic.GetNodeID(ctx)
	if !bls.Verify(pop.Key(), s, unsigned.Bytes()) {
		t.Fatal("the node's signature does not verify under its BLS key")
	}

	// A conversion id the subnet does not have: the P-Chain answers an
	// AppError on the same connection.
	wrongPayload := must(payload.NewAddressedCall(nil, must(message.NewSubnetToL1Conversion(ids.GenerateTestID())).Bytes()))
	wrong := must(avawarp.NewUnsignedMessage(netID, constants.PlatformChainID, wrongPayload.Bytes()))
	_, err = p.Sign(ctx, constants.PlatformChainID, wrong.Bytes(), conv.subnet[:])
	var appErr *acp118.AppError
	if !errors.As(err, &appErr) || appErr.ErrorCode != int32(platformnetwork.ErrMismatchedConversionID) {
		t.Fatalf("wrong conversion id: err = %v; want an AppError with code %d", err, platformnetwork.ErrMismatchedConversionID)
	}
	t.Logf("refused: %v", err)

	// A C-Chain message goes to the C-Chain: coreth signs the hash of a
	// block it accepted (its genesis).
	cchain, err := ic.GetBlockchainID(ctx, "C")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(n.URI+"/ext/bc/C/rpc", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x0",false]}`))
	if err != nil {
		t.Fatal(err)
	}
	var blk struct {
		Result struct {
			Hash string `json:"hash"`
		} `json:"result"`
	}
	err = json.NewDecoder(resp.Body).Decode(&blk)
	resp.Body.Close()
	hash, herr := hex.DecodeString(strings.TrimPrefix(blk.Result.Hash, "0x"))
	if err != nil || herr != nil || len(hash) != 32 {
		t.Fatalf("C-Chain genesis hash %q: %v %v", blk.Result.Hash, err, herr)
	}
	cmsg := must(avawarp.NewUnsignedMessage(netID, cchain, must(payload.NewHash(ids.ID(hash))).Bytes()))
	csig, err := p.Sign(ctx, cchain, cmsg.Bytes(), nil)
	if err != nil {
		t.Fatalf("C-Chain block hash: %v", err)
	}
	if s, err := bls.SignatureFromBytes(csig); err != nil || !bls.Verify(pop.Key(), s, cmsg.Bytes()) {
		t.Fatalf("the C-Chain signature does not verify: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
