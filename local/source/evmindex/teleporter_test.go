package evmindex

import (
	"context"
	"database/sql"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
)

// The topics as icm-contracts' generated Go bindings list them
// (abi-bindings/go/teleporter/ITeleporterMessenger, "binding the contract
// event 0x...").
const (
	publishedSendTopic    = "0x2a211ad4a59ab9d003852404f9c57c690704ee755f3c79d2c2812ad32da99df8"
	publishedReceiveTopic = "0x292ee90bbaf70b5d4936025e09d56ba08f3e421156b6a568cf3c2840d9343e34"
)

// Blockchain ids of the C-chains of Mainnet and Fuji.
var (
	mainnetCChain = common.HexToHash("0x0427d4b22a2a78bcddd456742caf91b56badbff985ee19aef14573e7343fd652")
	fujiCChain    = common.HexToHash("0x7fc93d85c6d62c5b2ac0b519c87010ea5294012d1e407030d6acd0021cac10d5")
)

// teleporterABI reads the two events' ABI, as the icm-contracts ABI has
// them, with the structs as tuples.
func teleporterABI(t testing.TB) abi.ABI {
	t.Helper()
	f, err := os.Open("testdata/teleporter_events.abi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := abi.JSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Go shapes of the ABI tuples, for abi's Pack.
type (
	tReceipt struct {
		ReceivedMessageNonce *big.Int
		RelayerRewardAddress common.Address
	}
	tMessage struct {
		MessageNonce            *big.Int
		OriginSenderAddress     common.Address
		DestinationBlockchainID [32]byte
		DestinationAddress      common.Address
		RequiredGasLimit        *big.Int
		AllowedRelayerAddresses []common.Address
		Receipts                []tReceipt
		Message                 []byte
	}
	tFeeInfo struct {
		FeeTokenAddress common.Address
		Amount          *big.Int
	}
)

// messageID is TeleporterMessenger.calculateMessageID:
// keccak256(abi.encode(messenger, source, destination, nonce)).
func messageID(t testing.TB, source, dest common.Hash, nonce int64) common.Hash {
	t.Helper()
	ty := func(s string) abi.Type { x, _ := abi.NewType(s, "", nil); return x }
	args := abi.Arguments{{Type: ty("address")}, {Type: ty("bytes32")}, {Type: ty("bytes32")}, {Type: ty("uint256")}}
	b, err := args.Pack(TeleporterMessenger, [32]byte(source), [32]byte(dest), big.NewInt(nonce))
	if err != nil {
		t.Fatal(err)
	}
	return crypto.Keccak256Hash(b)
}

func message(nonce int64, dest common.Hash) tMessage {
	return tMessage{
		MessageNonce: big.NewInt(nonce), OriginSenderAddress: common.HexToAddress("0x5e0de2"), DestinationBlockchainID: dest,
		DestinationAddress: common.HexToAddress("0xde57"), RequiredGasLimit: big.NewInt(100_000),
		AllowedRelayerAddresses: []common.Address{}, Receipts: []tReceipt{{big.NewInt(1), common.HexToAddress("0x4e1a")}},
		Message: []byte("hello from the other chain"),
	}
}

// sendLog is the SendCrossChainMessage log the contract emits for id.
func sendLog(t testing.TB, a abi.ABI, from common.Address, id, dest common.Hash, nonce int64) *types.Log {
	t.Helper()
	ev := a.Events["SendCrossChainMessage"]
	data, err := ev.Inputs.NonIndexed().Pack(message(nonce, dest), tFeeInfo{common.HexToAddress("0xfee"), big.NewInt(7)})
	if err != nil {
		t.Fatal(err)
	}
	return &types.Log{Address: from, Topics: []common.Hash{ev.ID, id, dest}, Data: data}
}

// receiveLog is the ReceiveCrossChainMessage log the contract emits for id.
func receiveLog(t testing.TB, a abi.ABI, from common.Address, id, source common.Hash, nonce int64) *types.Log {
	t.Helper()
	ev := a.Events["ReceiveCrossChainMessage"]
	deliverer := common.HexToAddress("0xde11")
	data, err := ev.Inputs.NonIndexed().Pack(common.HexToAddress("0x4ede"), message(nonce, common.Hash{0xaa}))
	if err != nil {
		t.Fatal(err)
	}
	return &types.Log{Address: from, Topics: []common.Hash{ev.ID, id, source, common.BytesToHash(deliverer.Bytes())}, Data: data}
}

func TestTeleporterTopics(t *testing.T) {
	a := teleporterABI(t)
	cases := []struct {
		event, sig string
		got        common.Hash
		published  string
	}{
		{"SendCrossChainMessage", "SendCrossChainMessage(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes),(address,uint256))",
			topicSendCrossChainMessage, publishedSendTopic},
		{"ReceiveCrossChainMessage", "ReceiveCrossChainMessage(bytes32,bytes32,address,address,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))",
			topicReceiveCrossChainMessage, publishedReceiveTopic},
	}
	for _, tc := range cases {
		t.Run(tc.event, func(t *testing.T) {
			ev := a.Events[tc.event]
			if ev.Sig != tc.sig {
				t.Errorf("ABI signature %s; want %s", ev.Sig, tc.sig)
			}
			if tc.got != ev.ID {
				t.Errorf("topic %s; the ABI's event id is %s", tc.got, ev.ID)
			}
			if tc.got.Hex() != tc.published {
				t.Errorf("topic %s; icm-contracts publishes %s", tc.got, tc.published)
			}
		})
	}
}

// fakeTx is a transaction of a fakeNode block with its receipt's logs.
type fakeTx struct {
	hash     common.Hash
	reverted bool
	logs     []*types.Log
}

// fakeBlock is a block of a fakeNode chain; its hash is keccak256(parent
// hash ‖ label), so two chains share a block only while their labels agree.
type fakeBlock struct {
	label string
	txs   []fakeTx
}

// fakeNode is an in-process JSON-RPC node serving a chain the test sets:
// eth_chainId, eth_blockNumber, eth_getBlockByNumber and
// eth_getBlockReceipts, in go-ethereum's wire format (receipts and logs are
// go-ethereum's own types). It is safe for concurrent use.
type fakeNode struct {
	id       uint64     // the chain id; zero means fakeChainID
	mu       sync.Mutex // guards blocks and receipts
	blocks   []map[string]any
	receipts [][]*types.Receipt
}

const fakeChainID = 99

// set replaces the node's chain.
func (n *fakeNode) set(chain []fakeBlock) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.blocks, n.receipts = nil, nil
	var parent common.Hash
	price := big.NewInt(25e9)
	sender := common.HexToAddress("0x5e4d")
	for num, b := range chain {
		hash := crypto.Keccak256Hash(parent[:], []byte(b.label))
		var txs []map[string]any
		var rs []*types.Receipt
		logIndex := uint(0)
		for i, tx := range b.txs {
			to := TeleporterMessenger
			txs = append(txs, map[string]any{
				"hash": tx.hash, "transactionIndex": hexutil.Uint(i), "type": hexutil.Uint64(2), "from": sender, "to": &to,
				"value": (*hexutil.Big)(new(big.Int)), "nonce": hexutil.Uint64(i), "gas": hexutil.Uint64(500_000),
				"gasPrice": (*hexutil.Big)(price), "maxFeePerGas": (*hexutil.Big)(price), "maxPriorityFeePerGas": (*hexutil.Big)(new(big.Int)),
				"input": hexutil.Bytes{0x62, 0x91, 0x2b, 0xa2},
			})
			r := &types.Receipt{Type: 2, Status: types.ReceiptStatusSuccessful, TxHash: tx.hash, GasUsed: 100_000, EffectiveGasPrice: price,
				BlockHash: hash, BlockNumber: big.NewInt(int64(num)), TransactionIndex: uint(i), Logs: []*types.Log{}}
			if tx.reverted {
				r.Status = types.ReceiptStatusFailed
			} else {
				for _, l := range tx.logs {
					c := *l
					c.BlockNumber, c.BlockHash, c.TxHash, c.TxIndex, c.Index = uint64(num), hash, tx.hash, uint(i), logIndex
					logIndex++
					r.Logs = append(r.Logs, &c)
				}
			}
			rs = append(rs, r)
		}
		n.blocks = append(n.blocks, map[string]any{
			"number": hexutil.Uint64(num), "hash": hash, "parentHash": parent, "timestamp": hexutil.Uint64(1_700_000_000 + 2*num),
			"gasUsed": hexutil.Uint64(100_000 * len(txs)), "gasLimit": hexutil.Uint64(30_000_000), "baseFeePerGas": (*hexutil.Big)(price),
			"transactions": append([]map[string]any{}, txs...),
		})
		n.receipts = append(n.receipts, rs)
		parent = hash
	}
}

// client returns an in-process RPC client of the node.
func (n *fakeNode) client(t testing.TB) *rpc.Client {
	t.Helper()
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", fakeEth{n}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	c := rpc.DialInProc(srv)
	t.Cleanup(c.Close)
	return c
}

// fakeEth is the "eth" namespace of a fakeNode.
type fakeEth struct{ n *fakeNode }

func (e fakeEth) ChainId() hexutil.Uint64 {
	if e.n.id != 0 {
		return hexutil.Uint64(e.n.id)
	}
	return fakeChainID
}

// logFilter is the eth_getLogs filter the index sends.
type logFilter struct {
	FromBlock hexutil.Uint64   `json:"fromBlock"`
	ToBlock   hexutil.Uint64   `json:"toBlock"`
	Address   []common.Address `json:"address"`
}

// GetLogs answers eth_getLogs over the block range and addresses of f.
func (e fakeEth) GetLogs(f logFilter) []*types.Log {
	e.n.mu.Lock()
	defer e.n.mu.Unlock()
	out := []*types.Log{}
	for n := int(f.FromBlock); n <= int(f.ToBlock) && n < len(e.n.receipts); n++ {
		for _, r := range e.n.receipts[n] {
			for _, l := range r.Logs {
				for _, a := range f.Address {
					if l.Address == a {
						out = append(out, l)
					}
				}
			}
		}
	}
	return out
}

func (e fakeEth) BlockNumber() hexutil.Uint64 {
	e.n.mu.Lock()
	defer e.n.mu.Unlock()
	return hexutil.Uint64(len(e.n.blocks) - 1)
}

func (e fakeEth) GetBlockByNumber(num hexutil.Uint64, full bool) map[string]any {
	e.n.mu.Lock()
	defer e.n.mu.Unlock()
	if int(num) >= len(e.n.blocks) {
		return nil
	}
	b := e.n.blocks[num]
	if !full {
		return map[string]any{"number": b["number"], "hash": b["hash"], "parentHash": b["parentHash"]}
	}
	return b
}

func (e fakeEth) GetBlockReceipts(num hexutil.Uint64) []*types.Receipt {
	e.n.mu.Lock()
	defer e.n.mu.Unlock()
	if int(num) >= len(e.n.receipts) {
		return nil
	}
	return e.n.receipts[num]
}

// teleporterWorld is the fake node's first chain, whose transactions are:
//
//	noise (block 1): logs that are not Teleporter events of the messenger
//	send  (block 2): two SendCrossChainMessage, to Mainnet's and Fuji's C-chains
//	recv  (block 3): a ReceiveCrossChainMessage from Fuji's C-chain
type teleporterWorld struct {
	store             storeFor // nil: the default store
	node              fakeNode
	abi               abi.ABI
	noise, send, recv common.Hash
	other             common.Address // a contract emitting the same events
	ids               [3]common.Hash // messages of send (2) and recv
	chain             []fakeBlock
}

func newTeleporterWorld(t testing.TB) *teleporterWorld {
	w := &teleporterWorld{abi: teleporterABI(t), other: common.HexToAddress("0x07e4"),
		noise: common.Hash{0x01}, send: common.Hash{0x02}, recv: common.Hash{0x03}}
	const local = "local chain"
	src := crypto.Keccak256Hash([]byte(local))
	w.ids = [3]common.Hash{messageID(t, src, mainnetCChain, 1), messageID(t, src, fujiCChain, 2), messageID(t, fujiCChain, src, 9)}
	m := TeleporterMessenger
	short := sendLog(t, w.abi, m, w.ids[0], mainnetCChain, 1)
	short.Topics = short.Topics[:2]
	long := sendLog(t, w.abi, m, w.ids[0], mainnetCChain, 1)
	long.Topics = append(long.Topics, common.Hash{0x0f})
	recvShort := receiveLog(t, w.abi, m, w.ids[2], fujiCChain, 9)
	recvShort.Topics = recvShort.Topics[:3]
	executed := &types.Log{Address: m, Topics: []common.Hash{crypto.Keccak256Hash([]byte("MessageExecuted(bytes32,bytes32)")), w.ids[2], fujiCChain}}
	w.chain = []fakeBlock{
		{label: "genesis"},
		{label: "a1", txs: []fakeTx{{hash: w.noise, logs: []*types.Log{
			sendLog(t, w.abi, w.other, w.ids[0], mainnetCChain, 1), // same event, another contract
			short, long, recvShort, executed,
			{Address: m}, // no topics at all
		}}}},
		{label: "a2", txs: []fakeTx{{hash: w.send, logs: []*types.Log{
			sendLog(t, w.abi, m, w.ids[0], mainnetCChain, 1),
			sendLog(t, w.abi, m, w.ids[1], fujiCChain, 2),
		}}}},
		{label: "a3", txs: []fakeTx{{hash: w.recv, logs: []*types.Log{receiveLog(t, w.abi, m, w.ids[2], fujiCChain, 9)}}}},
	}
	w.node.set(w.chain)
	return w
}

// open indexes the fake node's chain up to block head.
func (w *teleporterWorld) open(t testing.TB, path string, head uint64, co ChainOptions, onRollback RollbackHook) *Index {
	t.Helper()
	ctx := context.Background()
	co.ChainID, co.Client, co.NoTrace, co.PollInterval = fakeChainID, w.node.client(t), true, 5*time.Millisecond
	var store Store
	if w.store != nil {
		store = w.store(t)
	}
	ix, err := Open(ctx, Options{Store: store, Path: path, Chains: []ChainOptions{co}, OnRollback: onRollback})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ix.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ix.WaitFor(wctx, fakeChainID, head); err != nil {
		t.Fatal(err)
	}
	return ix
}

func teleporterOf(t testing.TB, ix *Index, tx common.Hash) []TeleporterEvent {
	t.Helper()
	d, err := ix.Transaction(context.Background(), fakeChainID, tx)
	if err != nil {
		t.Fatalf("transaction %s: %v", tx, err)
	}
	return d.Teleporter
}

func checkEvents(t testing.TB, tx common.Hash, got, want []TeleporterEvent) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("tx %s: %d Teleporter events %+v; want %d %+v", tx, len(got), got, len(want), want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("tx %s event %d: got %+v; want %+v", tx, i, got[i], want[i])
		}
	}
}

func TestTeleporterIndexed(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		w := newTeleporterWorld(t)
		w.store = store
		send0 := TeleporterEvent{TxHash: w.send, LogIndex: 0, MessageID: w.ids[0], Direction: TeleporterSource, OtherChain: mainnetCChain}
		send1 := TeleporterEvent{TxHash: w.send, LogIndex: 1, MessageID: w.ids[1], Direction: TeleporterSource, OtherChain: fujiCChain}
		recv := TeleporterEvent{TxHash: w.recv, LogIndex: 0, MessageID: w.ids[2], Direction: TeleporterDestination, OtherChain: fujiCChain}
		otherSend := TeleporterEvent{TxHash: w.noise, LogIndex: 0, MessageID: w.ids[0], Direction: TeleporterSource, OtherChain: mainnetCChain}
		cases := []struct {
			name       string
			messengers []common.Address
			want       map[common.Hash][]TeleporterEvent
		}{
			{"canonical messenger", nil, map[common.Hash][]TeleporterEvent{w.noise: nil, w.send: {send0, send1}, w.recv: {recv}}},
			{"messenger replaced", []common.Address{w.other}, map[common.Hash][]TeleporterEvent{w.noise: {otherSend}, w.send: nil, w.recv: nil}},
			{"messenger added", []common.Address{TeleporterMessenger, w.other}, map[common.Hash][]TeleporterEvent{w.noise: {otherSend}, w.send: {send0, send1}, w.recv: {recv}}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ix := w.open(t, "", 3, ChainOptions{TeleporterAddresses: tc.messengers}, nil)
				for tx, want := range tc.want {
					checkEvents(t, tx, teleporterOf(t, ix, tx), want)
				}
			})
		}
	})
}

func TestTeleporterReorg(t *testing.T) {
	eachStore(t, func(t *testing.T, store storeFor) {
		w := newTeleporterWorld(t)
		w.store = store
		var mu sync.Mutex // guards rolled: OnRollback runs on the follower goroutine
		var rolled []uint64
		ix := w.open(t, "", 3, ChainOptions{}, func(_ context.Context, _ uint64, from uint64) { mu.Lock(); rolled = append(rolled, from); mu.Unlock() })
		if got := teleporterOf(t, ix, w.send); len(got) != 2 {
			t.Fatalf("before the re-org: send has %d events; want 2", len(got))
		}

		// Blocks 2 and 3 are replaced: the send is included again but reverts
		// (no logs), the receive moves to block 4.
		b := append([]fakeBlock{}, w.chain[:2]...)
		b = append(b, fakeBlock{label: "b2", txs: []fakeTx{{hash: w.send, reverted: true}}}, fakeBlock{label: "b3"}, fakeBlock{label: "b4", txs: w.chain[3].txs})
		w.node.set(b)
		wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ix.WaitFor(wctx, fakeChainID, 4); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if len(rolled) != 1 || rolled[0] != 2 {
			t.Errorf("rollbacks from %v; want one from block 2", rolled)
		}
		mu.Unlock()
		d, err := ix.Transaction(context.Background(), fakeChainID, w.send)
		if err != nil || d.Status != 0 || d.BlockNumber != 2 {
			t.Fatalf("send after the re-org: %+v, %v; want reverted in block 2", d, err)
		}
		checkEvents(t, w.send, d.Teleporter, nil)
		d, err = ix.Transaction(context.Background(), fakeChainID, w.recv)
		if err != nil || d.BlockNumber != 4 {
			t.Fatalf("receive after the re-org: %+v, %v; want block 4", d, err)
		}
		checkEvents(t, w.recv, d.Teleporter, []TeleporterEvent{{TxHash: w.recv, LogIndex: 0, MessageID: w.ids[2], Direction: TeleporterDestination, OtherChain: fujiCChain}})
		var rows, block int
		if err := queryRow(ix, `SELECT count(*), max(block_number) FROM teleporter_messages WHERE chain_id=?`, fakeChainID).Scan(&rows, &block); err != nil {
			t.Fatal(err)
		}
		if rows != 1 || block != 4 {
			t.Fatalf("teleporter_messages holds %d rows up to block %d; want 1 in block 4", rows, block)
		}
	})
}

// TestTeleporterOlderStore opens a store written before teleporter_messages
// existed: the table is added, new blocks fill it, older ones stay without.
func TestTeleporterOlderStore(t *testing.T) {
	w := newTeleporterWorld(t)
	w.node.set(w.chain[:3])
	path := filepath.Join(t.TempDir(), "index.db")
	ix := w.open(t, path, 2, ChainOptions{}, nil)
	ix.Close()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TABLE teleporter_messages`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	w.node.set(w.chain)
	ix = w.open(t, path, 3, ChainOptions{}, nil)
	checkEvents(t, w.send, teleporterOf(t, ix, w.send), nil)
	checkEvents(t, w.recv, teleporterOf(t, ix, w.recv), []TeleporterEvent{{TxHash: w.recv, LogIndex: 0, MessageID: w.ids[2], Direction: TeleporterDestination, OtherChain: fujiCChain}})
}

func TestTeleporterDirectionString(t *testing.T) {
	for d, want := range map[TeleporterDirection]string{TeleporterSource: "SOURCE_TRANSACTION", TeleporterDestination: "DESTINATION_TRANSACTION", 0: "UNKNOWN"} {
		if got := d.String(); got != want {
			t.Errorf("TeleporterDirection(%d).String() = %q; want %q", d, got, want)
		}
	}
}

// FuzzDecodeTeleporter checks that any log decodes without a panic, and to
// an event exactly when it has the event's topic, its topic count and a
// messenger's address.
func FuzzDecodeTeleporter(f *testing.F) {
	f.Add(uint8(0), uint8(3), true, []byte{1, 2, 3})
	f.Add(uint8(1), uint8(4), true, []byte{})
	f.Add(uint8(1), uint8(2), false, []byte{9})
	f.Fuzz(func(t *testing.T, kind, n uint8, canonical bool, seed []byte) {
		topics := make([]common.Hash, n%6)
		for i := range topics {
			topics[i] = crypto.Keccak256Hash(seed, []byte{byte(i)})
		}
		if len(topics) > 0 {
			topics[0] = []common.Hash{topicSendCrossChainMessage, topicReceiveCrossChainMessage, topicTransfer}[kind%3]
		}
		l := rpcLog{Address: common.HexToAddress("0x1234"), Topics: topics, Data: seed}
		if canonical {
			l.Address = TeleporterMessenger
		}
		out := decodeTeleporter(nil, messengerSet(nil), common.Hash{1}, &l)
		var want []TeleporterEvent
		switch {
		case !canonical:
		case kind%3 == 0 && len(topics) == 3:
			want = []TeleporterEvent{{TxHash: common.Hash{1}, MessageID: topics[1], Direction: TeleporterSource, OtherChain: topics[2]}}
		case kind%3 == 1 && len(topics) == 4:
			want = []TeleporterEvent{{TxHash: common.Hash{1}, MessageID: topics[1], Direction: TeleporterDestination, OtherChain: topics[2]}}
		}
		checkEvents(t, l.TxHash, out, want)
	})
}
