package avalanchego

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ava-labs/avalanchego/api/info"
	"github.com/ava-labs/avalanchego/snow/validators"
	"github.com/ava-labs/avalanchego/utils/constants"
	"github.com/ava-labs/avalanchego/vms/platformvm"
	platformapi "github.com/ava-labs/avalanchego/vms/platformvm/api"
	avawarp "github.com/ava-labs/avalanchego/vms/platformvm/warp"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/message"
	"github.com/ava-labs/avalanchego/vms/platformvm/warp/payload"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/warp"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/source/warpsource"
)

// aggregate calls the aggregator route at url (GET, or POST with body) and
// returns the status and body.
func aggregate(t *testing.T, method, url, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestNodeWarpAggregates follows a real node after a ConvertSubnetToL1 and
// asks the node-mode aggregator, through the catalogue's routes, for the
// conversion's SubnetToL1ConversionMessage: the node signs it over the p2p
// protocol, and avalanchego's warp package verifies the answer against the
// L1's validator set from platform.getValidatorsAt.
func TestNodeWarpAggregates(t *testing.T) {
	node := startNode(t)
	conv := convertL1(t, node.URI)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pc := platformvm.NewClient(node.URI)
	pHeight, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := pindex.Open(ctx, pindex.Options{Node: node.URI, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Start(ctx)
	if err := ix.WaitFor(ctx, avanet.ChainP, pHeight); err != nil {
		t.Fatalf("P-Chain not indexed to %d: %v", pHeight, err)
	}
	src, err := warpsource.NewNode(warpsource.NodeOptions{Index: ix, Node: node.URI})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	agg := warp.NewAggregator(src, warp.Options{})
	srv := httptest.NewServer(catalog.NewMux(catalog.Catalogue(), agg.Handlers()))
	defer srv.Close()
	netID, err := info.NewClient(node.URI).GetNetworkID(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The L1's validator set, from avalanchego's own client.
	set, err := pc.GetValidatorsAt(ctx, conv.subnet, platformapi.Height(pHeight))
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 1 || set[conv.nodeID] == nil || set[conv.nodeID].Weight != 100 {
		t.Fatalf("L1 validators at %d = %v; want the node alone, weight 100", pHeight, set)
	}
	canonical, err := validators.FlattenValidatorSet(set)
	if err != nil {
		t.Fatal(err)
	}
	verifySigned := func(t *testing.T, body []byte) *avawarp.Message {
		t.Helper()
		var out struct {
			SignedMessage string `json:"signedMessage"`
		}
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		raw, err := hex.DecodeString(out.SignedMessage)
		if err != nil {
			t.Fatal(err)
		}
		m, err := avawarp.ParseMessage(raw)
		if err != nil {
			t.Fatalf("avalanchego cannot parse the signed message: %v", err)
		}
		if m.NetworkID != netID || m.SourceChainID != constants.PlatformChainID {
			t.Fatalf("message from network %d chain %s; want %d, the P-Chain", m.NetworkID, m.SourceChainID, netID)
		}
		call, err := payload.ParseAddressedCall(m.Payload)
		if err != nil {
			t.Fatal(err)
		}
		l1, err := message.ParseSubnetToL1Conversion(call.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if l1.ID != conv.conversionID {
			t.Fatalf("conversion id %s; platform.getSubnet says %s", l1.ID, conv.conversionID)
		}
		// All the weight: 100 of 100, the node's.
		if err := m.Signature.Verify(&m.UnsignedMessage, netID, canonical, 100, 100); err != nil {
			t.Fatalf("avalanchego rejects the signature at 100%%: %v", err)
		}
		bits := m.Signature.(*avawarp.BitSetSignature)
		if !bytes.Equal(bits.Signers, []byte{1}) {
			t.Fatalf("signers %x; want 01, the node", bits.Signers)
		}
		return m
	}

	base := srv.URL + "/v1/signatureAggregator/fuji/aggregateSignatures"
	signBy := `"signingSubnetId":"` + conv.subnet.String() + `","quorumPercentage":100`
	start := time.Now()
	status, body := aggregate(t, http.MethodPost, base, `{"justification":"`+hex.EncodeToString(conv.tx[:])+`",`+signBy+`}`)
	cold := time.Since(start)
	if status != http.StatusCreated {
		t.Fatalf("POST with the conversion tx as justification: %d %s", status, body)
	}
	first := verifySigned(t, body)

	// The subnet id as justification stands for the same message; the
	// signature is the cached one.
	status, body = aggregate(t, http.MethodPost, base, `{"justification":"`+hex.EncodeToString(conv.subnet[:])+`",`+signBy+`}`)
	if status != http.StatusCreated {
		t.Fatalf("POST with the subnet as justification: %d %s", status, body)
	}
	if second := verifySigned(t, body); !bytes.Equal(second.Bytes(), first.Bytes()) {
		t.Fatal("the justification and the tx hash give different messages")
	}

	// A fresh aggregator (no signature cache) over the same Source asks
	// again on the open connection.
	warm := warp.NewAggregator(src, warp.Options{})
	start = time.Now()
	signed, err := warm.Aggregate(ctx, warp.Request{Network: "fuji", Message: first.UnsignedMessage.Bytes(),
		SigningSubnetID: conv.subnet, QuorumPercentage: 100})
	warmTook := time.Since(start)
	if err != nil {
		t.Fatalf("aggregate the unsigned message: %v", err)
	}
	if !bytes.Equal(signed, first.Bytes()) {
		t.Fatal("a second aggregation differs (BLS signatures are deterministic)")
	}
	t.Logf("one aggregation: %v cold (dial, handshake, sign), %v on the open connection", cold, warmTook)

	// The request Avalanche's builder console sends for a conversion:
	// message, justification and signing subnet, to a fresh Source that has
	// not met the conversion (it finds the justification in the index).
	fresh, err := warpsource.NewNode(warpsource.NodeOptions{Index: ix, Node: node.URI})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	srv2 := httptest.NewServer(catalog.NewMux(catalog.Catalogue(), warp.NewAggregator(fresh, warp.Options{}).Handlers()))
	defer srv2.Close()
	status, body = aggregate(t, http.MethodPost, srv2.URL+"/v1/signatureAggregator/fuji/aggregateSignatures",
		`{"message":"`+hex.EncodeToString(first.UnsignedMessage.Bytes())+`","justification":"`+hex.EncodeToString(conv.subnet[:])+
			`","signingSubnetId":"`+conv.subnet.String()+`","quorumPercentage":67}`)
	if status != http.StatusCreated {
		t.Fatalf("message, justification and signing subnet: %d %s", status, body)
	}
	verifySigned(t, body)

	// Without a signing subnet the P-Chain's message is signed by the
	// primary network, as icm-services does. A one-node network with sybil
	// protection off has the genesis stakers as primary validators, none of
	// them running: a quorum error, quickly, not a hang.
	start = time.Now()
	status, body = aggregate(t, http.MethodGet, base+"/"+conv.tx.String(), "")
	if status != http.StatusBadRequest || !strings.Contains(string(body), "Failed to reach quorum: validators holding 0.00% of the weight of subnet 11111111111111111111111111111111LpoYY") {
		t.Fatalf("GET by tx hash, primary network unreachable: %d %s; want 400 naming the quorum", status, body)
	}
	t.Logf("primary network: %d %s in %v", status, body, time.Since(start))

	// With the node stopped the message is still known (the index) but the
	// validator set is not: an internal error, not a hang or a stale set.
	node.stop()
	status, body = aggregate(t, http.MethodPost, base, `{"justification":"`+hex.EncodeToString(conv.subnet[:])+`",`+signBy+`}`)
	if status != http.StatusInternalServerError || !strings.Contains(string(body), "Failed to aggregate signatures") {
		t.Fatalf("node stopped: %d %s; want 500", status, body)
	}
}

// TestNodeWarpBinary runs the built avaedge with AVAEDGE_LOCAL_NODE on a node
// after a conversion: its aggregateSignatures route answers the conversion
// message signed by the node, as avalanchego verifies it.
func TestNodeWarpBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the avaedge binary")
	}
	node := startNode(t)
	conv := convertL1(t, node.URI)
	dir := t.TempDir()
	bin := filepath.Join(dir, "avaedge")
	build := exec.Command("go", "build", "-o", bin, "github.com/avaedge/avaedge/cmd/avaedge")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build avaedge: %v\n%s", err, out)
	}
	listen := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "AVAEDGE_LISTEN=" + listen,
		"AVAEDGE_ADMIN_LISTEN=127.0.0.1:" + strconv.Itoa(freePort(t)), "AVAEDGE_LOCAL_NODE=" + node.URI,
		"AVAEDGE_DATA_DIR=" + filepath.Join(dir, "data")}
	logf, err := os.Create(filepath.Join(dir, "avaedge.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("avaedge log:\n%s", b)
		}
	}()

	url := "http://" + listen + "/v1/signatureAggregator/fuji/aggregateSignatures"
	body := `{"justification":"` + hex.EncodeToString(conv.tx[:]) + `","signingSubnetId":"` + conv.subnet.String() + `","quorumPercentage":100}`
	deadline := time.Now().Add(90 * time.Second)
	var status int
	var out []byte
	for {
		// Until the listener is up and the conversion indexed (404 before).
		if resp, err := http.Post(url, "application/json", strings.NewReader(body)); err == nil {
			out, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			status = resp.StatusCode
			if status == http.StatusCreated {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no signed message after 90s: last answer %d %s", status, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var signed struct {
		SignedMessage string `json:"signedMessage"`
	}
	if err := json.Unmarshal(out, &signed); err != nil {
		t.Fatal(err)
	}
	raw, err := hex.DecodeString(signed.SignedMessage)
	if err != nil {
		t.Fatal(err)
	}
	m, err := avawarp.ParseMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pc := platformvm.NewClient(node.URI)
	h, err := pc.GetHeight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set, err := pc.GetValidatorsAt(ctx, conv.subnet, platformapi.Height(h))
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := validators.FlattenValidatorSet(set)
	if err != nil {
		t.Fatal(err)
	}
	netID, _ := info.NewClient(node.URI).GetNetworkID(ctx)
	if err := m.Signature.Verify(&m.UnsignedMessage, netID, canonical, 100, 100); err != nil {
		t.Fatalf("avalanchego rejects avaedge's answer: %v", err)
	}
	call, err := payload.ParseAddressedCall(m.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if l1, err := message.ParseSubnetToL1Conversion(call.Payload); err != nil || l1.ID != conv.conversionID {
		t.Fatalf("conversion message %v, %v; want id %s", l1, err, conv.conversionID)
	}
}

// BenchmarkNodeWarpAggregate measures one aggregation of the conversion
// message over a followed one-node network, without the signature cache (a
// fresh Aggregator each time) on the Source's open p2p connection: the
// node's platform.getHeight and getValidatorsAt, one ACP-118 request, blst
// verification and aggregation.
func BenchmarkNodeWarpAggregate(b *testing.B) {
	node := startNode(b)
	conv := convertL1(b, node.URI)
	ctx := context.Background()
	pHeight, err := platformvm.NewClient(node.URI).GetHeight(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := pindex.Open(ctx, pindex.Options{Node: node.URI, PollInterval: 100 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	ix.Start(ctx)
	if err := ix.WaitFor(ctx, avanet.ChainP, pHeight); err != nil {
		b.Fatal(err)
	}
	src, err := warpsource.NewNode(warpsource.NodeOptions{Index: ix, Node: node.URI})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	req := warp.Request{Network: "fuji", Justification: conv.tx[:], SigningSubnetID: conv.subnet, QuorumPercentage: 100}
	if _, err := warp.NewAggregator(src, warp.Options{}).Aggregate(ctx, req); err != nil {
		b.Fatal(err) // dials and handshakes
	}
	for b.Loop() {
		if _, err := warp.NewAggregator(src, warp.Options{}).Aggregate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
