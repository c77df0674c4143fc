package evm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// recorder is an eth service that counts the calls go-ethereum's rpc
// package dispatches to it.
type recorder struct{ writes, reads atomic.Int64 }

func (r *recorder) SendRawTransaction(input hexutil.Bytes) string { r.writes.Add(1); return "w" }
func (r *recorder) SendRawTransactionSync(input hexutil.Bytes, timeout *uint64) string {
	r.writes.Add(1)
	return "w"
}
func (r *recorder) BlockNumber() string { r.reads.Add(1); return "r" }

// dispatched serves body with go-ethereum's rpc server and returns how many
// writes it dispatched.
func dispatched(t testing.TB, body string) int {
	t.Helper()
	rec := &recorder{}
	srv := rpc.NewServer()
	defer srv.Stop()
	if err := srv.RegisterName("eth", rec); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	srv.ServeHTTP(httptest.NewRecorder(), req.WithContext(context.Background()))
	return int(rec.writes.Load())
}

const (
	write = `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x01"]}`
	read  = `{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber","params":[]}`
)

// parseCases are bodies with what parseCalls must count in them.
var parseCases = []struct {
	name              string
	body              string
	writes, ambiguous int
}{
	{"one write", write, 1, 0},
	{"one read", read, 0, 0},
	{"batch", "[" + write + "," + read + "," + write + "]", 2, 0},
	{"sync write", `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransactionSync","params":["0x01"]}`, 1, 0},
	{"non-string method first", `[{"method":1},` + write + "," + write + "]", 2, 1},
	{"numeric method alone", `{"jsonrpc":"2.0","id":1,"method":1}`, 0, 1},
	{"null method", `{"jsonrpc":"2.0","id":1,"method":null}`, 0, 1},
	{"extra Method key", `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","Method":"eth_blockNumber","params":["0x01"]}`, 0, 1},
	{"Method key first", `{"jsonrpc":"2.0","id":1,"Method":"eth_sendRawTransaction","method":"eth_blockNumber","params":["0x01"]}`, 0, 1},
	{"METHOD only", `{"jsonrpc":"2.0","id":1,"METHOD":"eth_sendRawTransaction","params":["0x01"]}`, 0, 1},
	{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","method":"eth_sendRawTransaction","params":["0x01"]}`, 0, 1},
	{"method then number", `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","method":1,"params":["0x01"]}`, 0, 1},
	{"escaped key", `{"jsonrpc":"2.0","id":1,"met\u0068od":"eth_sendRawTransaction","params":["0x01"]}`, 1, 0},
	{"escaped value", `{"jsonrpc":"2.0","id":1,"method":"eth_send\u0052awTransaction","params":["0x01"]}`, 1, 0},
	{"other case of the name", `{"jsonrpc":"2.0","id":1,"method":"eth_SendRawTransaction","params":["0x01"]}`, 0, 0},
	{"nested method", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[{"method":"eth_sendRawTransaction"}]}`, 0, 0},
	{"not JSON", `[` + write + `,`, 0, 0},
	{"null", `null`, 0, 0},
	{"scalars", `[1,"x",null,[]]`, 0, 0},
	{"empty batch", `[]`, 0, 0},
	{"whitespace", " \n\t[ " + write + " ]", 1, 0},
}

// TestParseCallsAsGeth: parseCalls counts the writes of each body as
// go-ethereum's rpc server dispatches them, and flags the elements whose
// method other parsers read differently.
func TestParseCallsAsGeth(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			calls, _ := parseCalls([]byte(tc.body))
			writes, ambiguous := countCalls(calls)
			if writes != tc.writes || ambiguous != tc.ambiguous {
				t.Fatalf("writes %d, ambiguous %d; want %d, %d", writes, ambiguous, tc.writes, tc.ambiguous)
			}
			if got := dispatched(t, tc.body); got > writes+ambiguous {
				t.Fatalf("go-ethereum dispatched %d writes; counted %d (+%d ambiguous)", got, writes, ambiguous)
			}
			if got := dispatched(t, tc.body); ambiguous == 0 && got != writes {
				t.Fatalf("go-ethereum dispatched %d writes; counted %d", got, writes)
			}
		})
	}
}

// FuzzParseCalls: go-ethereum never dispatches more writes than parseCalls
// counts (ambiguous calls count as writes).
func FuzzParseCalls(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		calls, _ := parseCalls([]byte(body))
		writes, ambiguous := countCalls(calls)
		if got := dispatched(t, body); got > writes+ambiguous {
			t.Fatalf("%q: go-ethereum dispatched %d writes; counted %d (+%d ambiguous)", body, got, writes, ambiguous)
		}
	})
}
