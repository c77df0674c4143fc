// Command wsload is the WebSocket benchmark's client (deploy/bench/ws.sh):
// it opens -subscribers connections to an avaedge in local mode, subscribes
// each to newHeads on the dev chain, then makes -blocks blocks, one ewoq
// transfer each, sent over HTTP every -interval, and reports for each
// block the delay from the moment its transaction was sent (the dev chain
// seals the block on arrival, so this bounds the block's age from above)
// to the moment the first and the last subscriber read its notification:
// p50, p99 and max of each, as one JSON line.
//
//	go run ./deploy/bench/wsload -edge http://127.0.0.1:8080 -subscribers 1000 -blocks 100
package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/gorilla/websocket"
)

// ewoqKey is the dev chain's pre-funded key (avalanchego's local network's).
const ewoqKey = "56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027"

// seen is one subscriber's arrivals: block number and when it was read.
// Each subscriber keeps its own, so readers share no lock.
type seen struct {
	n  []uint64
	at []time.Time
}

func main() {
	edge := flag.String("edge", "http://127.0.0.1:8080", "avaedge's base URL")
	subs := flag.Int("subscribers", 1000, "newHeads subscribers, one connection each")
	blocks := flag.Int("blocks", 100, "blocks to make")
	interval := flag.Duration("interval", 100*time.Millisecond, "time between blocks")
	flag.Parse()
	if err := run(*edge, *subs, *blocks, *interval); err != nil {
		fmt.Fprintln(os.Stderr, "wsload:", err)
		os.Exit(1)
	}
}

func run(edge string, subs, blocks int, interval time.Duration) error {
	ctx := context.Background()
	ws := "ws" + strings.TrimPrefix(edge, "http") + "/ext/bc/C/ws"
	var ready, done sync.WaitGroup
	var failed atomic.Int64
	conns := make([]*websocket.Conn, subs)
	arrivals := make([]seen, subs)
	for i := range conns {
		c, _, err := websocket.DefaultDialer.Dial(ws, nil)
		if err != nil {
			return fmt.Errorf("subscriber %d: %w", i, err)
		}
		conns[i] = c
		if err := c.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
			return err
		}
		ready.Add(1)
		done.Add(1)
		go func() { defer done.Done(); read(c, &arrivals[i], &ready, &failed) }() // ends when the connection is closed
	}
	ready.Wait()
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d subscriptions failed", n)
	}
	ec, err := ethclient.DialContext(ctx, edge+"/ext/bc/C/rpc")
	if err != nil {
		return err
	}
	sent, answered, err := makeBlocks(ctx, ec, blocks, interval)
	if err != nil {
		return err
	}
	time.Sleep(time.Second) // the last notifications
	for _, c := range conns {
		c.Close()
	}
	done.Wait()
	first, last, count := map[uint64]time.Time{}, map[uint64]time.Time{}, map[uint64]int{}
	for _, s := range arrivals {
		for i, n := range s.n {
			if f, ok := first[n]; !ok || s.at[i].Before(f) {
				first[n] = s.at[i]
			}
			if s.at[i].After(last[n]) {
				last[n] = s.at[i]
			}
			count[n]++
		}
	}
	var toFirst, toLast, fromAnswer []time.Duration
	missing := 0
	for n, at := range sent {
		if count[n] != subs {
			missing += subs - count[n]
			continue
		}
		toFirst = append(toFirst, first[n].Sub(at))
		toLast = append(toLast, last[n].Sub(at))
		fromAnswer = append(fromAnswer, last[n].Sub(answered[n]))
	}
	out := map[string]any{"subscribers": subs, "blocks": len(sent), "missing": missing,
		"firstP50ms": ms(quantile(toFirst, .5)), "firstP99ms": ms(quantile(toFirst, .99)),
		"lastP50ms": ms(quantile(toLast, .5)), "lastP99ms": ms(quantile(toLast, .99)), "lastMaxms": ms(quantile(toLast, 1)),
		"lastAfterAnswerP50ms": ms(quantile(fromAnswer, .5)), "lastAfterAnswerP99ms": ms(quantile(fromAnswer, .99))}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// read reads c's subscription answer, then its notifications' block
// numbers, until the connection ends. The arrival time is read first, the
// number found without decoding the header: the client's own work is not
// the edge's delay.
func read(c *websocket.Conn, s *seen, ready *sync.WaitGroup, failed *atomic.Int64) {
	var answer struct {
		Result string `json:"result"`
	}
	if c.ReadJSON(&answer) != nil || answer.Result == "" {
		failed.Add(1)
	}
	ready.Done()
	buf := make([]byte, 0, 4096)
	for {
		_, r, err := c.NextReader()
		if err != nil {
			return
		}
		at := time.Now()
		buf = buf[:0]
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				break
			}
		}
		if i := bytes.Index(buf, numberKey); i >= 0 {
			rest := buf[i+len(numberKey):]
			if j := bytes.IndexByte(rest, '"'); j > 0 {
				if n, err := hexutil.DecodeUint64(string(rest[:j])); err == nil {
					s.n, s.at = append(s.n, n), append(s.at, at)
				}
			}
		}
	}
}

var numberKey = []byte(`"number":"`)

// makeBlocks sends n ewoq transfers, one every interval, each sealed in a
// block of its own, and returns, by block, when its transaction was sent
// and when the dev chain answered (it answers once the block is sealed).
func makeBlocks(ctx context.Context, ec *ethclient.Client, n int, interval time.Duration) (sent, answered map[uint64]time.Time, err error) {
	key, err := crypto.HexToECDSA(ewoqKey)
	if err != nil {
		return nil, nil, err
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID, err := ec.ChainID(ctx)
	if err != nil {
		return nil, nil, err
	}
	nonce, err := ec.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	head, err := ec.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	tip := big.NewInt(2_000_000_000)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(4)), tip)
	sent, answered = map[uint64]time.Time{}, map[uint64]time.Time{}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for i := 0; i < n; i++ {
		<-tick.C
		tx, err := signed(key, chainID, nonce, tip, feeCap)
		if err != nil {
			return nil, nil, err
		}
		at := time.Now()
		if err := ec.SendTransaction(ctx, tx); err != nil {
			return nil, nil, err
		}
		back := time.Now()
		r, err := ec.TransactionReceipt(ctx, tx.Hash())
		if err != nil {
			return nil, nil, fmt.Errorf("receipt of %s: %w", tx.Hash(), err)
		}
		sent[r.BlockNumber.Uint64()], answered[r.BlockNumber.Uint64()] = at, back
		nonce++
	}
	return sent, answered, nil
}

func signed(key *ecdsa.PrivateKey, chainID *big.Int, nonce uint64, tip, feeCap *big.Int) (*types.Transaction, error) {
	to := common.HexToAddress("0x00000000000000000000000000000000000b3e7c")
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000, To: &to, Value: big.NewInt(1)})
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), key)
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
