package avalanchego

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/genesis"
	"github.com/ava-labs/avalanchego/ids"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/utils/crypto/secp256k1"
	"github.com/ava-labs/avalanchego/utils/units"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
	"github.com/ava-labs/avalanchego/vms/platformvm/signer"
	"github.com/ava-labs/avalanchego/vms/platformvm/txs"
	avawarp "github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/secp256k1fx"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/source/warpsource"
)

// startPeer starts a second node of boot's network, bootstrapping from it,
// with a staking identity kept in its data directory (so that it survives a
// restart), and waits until its P-Chain is bootstrapped.
func startPeer(t *testing.T, boot *localNode, bootID ids.NodeID) *localNode {
	t.Helper()
	n := &localNode{t: t, bin: boot.bin, dir: t.TempDir(), httpPort: freePort(t), stakePort: freePort(t)}
	n.URI = "http://127.0.0.1:" + strconv.Itoa(n.httpPort)
	startPeerProcess(t, n, boot, bootID)
	t.Cleanup(n.stop)
	return n
}

func startPeerProcess(t *testing.T, n, boot *localNode, bootID ids.NodeID) {
	t.Helper()
	n.cmd = exec.Command(n.bin, "--network-id=local", "--sybil-protection-enabled=false", "--public-ip=127.0.0.1", "--fd-limit=16000",
		"--bootstrap-ips=127.0.0.1:"+strconv.Itoa(boot.stakePort), "--bootstrap-ids="+bootID.String(),
		"--http-port="+strconv.Itoa(n.httpPort), "--staking-port="+strconv.Itoa(n.stakePort), "--data-dir="+n.dir,
		"--log-level=warn", "--log-display-level=error")
	log, err := os.OpenFile(filepath.Join(n.dir, "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	n.cmd.Stdout, n.cmd.Stderr = log, log
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n.exited = make(chan struct{})
	go func() { n.cmd.Wait(); log.Close(); close(n.exited) }()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := info.NewClient(n.URI)
	for {
		ok, err := c.IsBootstrapped(ctx, "P")
		if err == nil && ok {
			return
		}
		select {
		case <-n.exited:
			b, _ := os.ReadFile(filepath.Join(n.dir, "stdout.log"))
			t.Fatalf("second avalanchego exited before bootstrapping:\n%s", b)
		case <-ctx.Done():
			t.Fatalf("second node's P-Chain not bootstrapped after 90s (last error %v)", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// l1Pair is an L1 validated by two nodes of one local network, 60 and 40,
// converted while the second was down, and the first node's index of it.
type l1Pair struct {
	node1, node2   *localNode
	id1, id2       ids.NodeID
	subnet, convTx ids.ID
	pHeight        uint64
	ix             *pindex.Index
}

// startL1Pair starts two nodes, converts a subnet to an L1 of both, waits
// until the first lists the second as a peer, and indexes the first's
// P-Chain up to the conversion.
func startL1Pair(t *testing.T, ctx context.Context) *l1Pair {
	t.Helper()
	l := &l1Pair{node1: startNode(t)}
	var pop1, pop2 *signer.ProofOfPossession
	var err error
	l.id1, pop1, err = info.NewClient(l.node1.URI).GetNodeID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l.node2 = startPeer(t, l.node1, l.id1)
	l.id2, pop2, err = info.NewClient(l.node2.URI).GetNodeID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Convert while the second node is down; it catches up on restart (a
	// node that only trusts itself with sybil protection off follows no
	// later blocks).
	l.node2.stop()

	key, err := secp256k1.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	w := makeWallets(t, ctx, l.node1.URI, secp256k1fx.NewKeychain(genesis.EWOQKey, key))
	tx, err := w.P.IssueCreateSubnetTx(&secp256k1fx.OutputOwners{Threshold: 1, Addrs: []ids.ShortID{key.Address()}})
	if err != nil {
		t.Fatal(err)
	}
	l.subnet = tx.ID()
	tx, err = w.P.IssueCreateChainTx(l.subnet, []byte(`{"config":{"chainId":99997},"alloc":{}}`), constants.EVMID, nil, "twochain")
	if err != nil {
		t.Fatal(err)
	}
	chain := tx.ID()
	pown := message.PChainOwner{Threshold: 1, Addresses: []ids.ShortID{key.Address()}}
	vdr := func(id ids.NodeID, pop *signer.ProofOfPossession, weight uint64) *txs.ConvertSubnetToL1Validator {
		return &txs.ConvertSubnetToL1Validator{NodeID: id.Bytes(), Weight: weight, Balance: units.Avax, Signer: *pop,
			RemainingBalanceOwner: pown, DeactivationOwner: pown}
	}
	vdrs := []*txs.ConvertSubnetToL1Validator{vdr(l.id1, pop1, 60), vdr(l.id2, pop2, 40)}
	slices.SortFunc(vdrs, func(a, b *txs.ConvertSubnetToL1Validator) int { return bytes.Compare(a.NodeID, b.NodeID) })
	tx, err = w.P.IssueConvertSubnetToL1Tx(l.subnet, chain, []byte{0xaa}, vdrs)
	if err != nil {
		t.Fatalf("ConvertSubnetToL1Tx: %v", err)
	}
	l.convTx = tx.ID()

	startPeerProcess(t, l.node2, l.node1, l.id1)
	if s, err := platformvm.NewClient(l.node2.URI).GetSubnet(ctx, l.subnet); err != nil || s.ConversionID == ids.Empty {
		t.Fatalf("the second node does not know the conversion: %+v, %v", s, err)
	}
	// The followed node lists its peer (with the address it signed).
	for {
		peers, err := info.NewClient(l.node1.URI).Peers(ctx, []ids.NodeID{l.id2})
		if err == nil && len(peers) == 1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("node 1 never connected to node 2: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}

	if l.pHeight, err = platformvm.NewClient(l.node1.URI).GetHeight(ctx); err != nil {
		t.Fatal(err)
	}
	l.ix, err = pindex.Open(ctx, pindex.Options{Node: l.node1.URI, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.ix.Close() })
	l.ix.Start(ctx)
	if err := l.ix.WaitFor(ctx, avanet.ChainP, l.pHeight); err != nil {
		t.Fatal(err)
	}
	return l
}

// request asks for the conversion's message, signed by quorum% of the L1.
func (l *l1Pair) request(quorum uint64) warp.Request {
	return warp.Request{Network: "fuji", Justification: l.convTx[:], SigningSubnetID: l.subnet, QuorumPercentage: quorum}
}

// TestNodeWarpTwoValidators converts a subnet to an L1 validated by two
// nodes, 60 and 40, and aggregates over the followed first one: the second
// is found through the first's info.peers and asked over its own
// connection; with it stopped, only 60% signs.
func TestNodeWarpTwoValidators(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	l := startL1Pair(t, ctx)
	src, err := warpsource.NewNode(warpsource.NodeOptions{Index: l.ix, Node: l.node1.URI})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	pc := platformvm.NewClient(l.node1.URI)
	set, err := pc.GetValidatorsAt(ctx, l.subnet, platformapi.Height(l.pHeight))
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := validators.FlattenValidatorSet(set)
	if err != nil {
		t.Fatal(err)
	}
	netID, _ := info.NewClient(l.node1.URI).GetNetworkID(ctx)
	check := func(t *testing.T, signed []byte, quorum uint64, signers int) {
		t.Helper()
		m, err := avawarp.ParseMessage(signed)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Signature.Verify(&m.UnsignedMessage, netID, canonical, quorum, 100); err != nil {
			t.Fatalf("avalanchego rejects the signature at %d%%: %v", quorum, err)
		}
		n, err := m.Signature.NumSigners()
		if err != nil || n != signers {
			t.Fatalf("%d signers, %v; want %d", n, err, signers)
		}
	}

	start := time.Now()
	signed, err := warp.NewAggregator(src, warp.Options{}).Aggregate(ctx, l.request(100))
	if err != nil {
		t.Fatalf("both validators: %v", err)
	}
	check(t, signed, 100, 2)
	t.Logf("two validators, 100%%: %v", time.Since(start))

	// The second validator goes away: 60% is not 67%, but is 60%.
	l.node2.stop()
	agg := warp.NewAggregator(src, warp.Options{SignerTimeout: 3 * time.Second})
	_, err = agg.Aggregate(ctx, l.request(67))
	var qe *warp.QuorumError
	if !errors.As(err, &qe) || qe.SignedWeight != 60 || qe.TotalWeight != 100 {
		t.Fatalf("with node 2 down, quorum 67: %v; want a QuorumError of 60/100", err)
	}
	if !strings.Contains(err.Error(), "60") {
		t.Errorf("the error does not name the signed weight: %v", err)
	}
	signed, err = agg.Aggregate(ctx, l.request(60))
	if err != nil {
		t.Fatalf("with node 2 down, quorum 60: %v", err)
	}
	check(t, signed, 60, 1)
}
