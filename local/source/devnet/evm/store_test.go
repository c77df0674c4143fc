package evm

import (
	"bufio"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

var sink = common.HexToAddress("0x000000000000000000000000000000000000dEaD")

// transfer mines dev1's transfer of v wei to sink, with the nonce the head
// has for dev1.
func transfer(t testing.TB, c *Chain, v int64) *types.Block {
	t.Helper()
	st, err := c.eth.BlockChain().State()
	if err != nil {
		t.Fatal(err)
	}
	dev1 := c.accounts[1].Address
	s := &seeder{c: c, signer: latestSigner(c), nonces: map[common.Address]uint64{dev1: st.GetNonce(dev1)}}
	b, _, err := c.SendBlock(context.Background(), s.tx(c.accounts[1], &sink, big.NewInt(v), nil, 21_000))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// balance is addr's balance at c's head.
func balance(t testing.TB, c *Chain, addr common.Address) *big.Int {
	t.Helper()
	st, err := c.eth.BlockChain().State()
	if err != nil {
		t.Fatal(err)
	}
	return st.GetBalance(addr).ToBig()
}

// TestDirReopen: a chain kept in a directory comes back after Close at the
// same head, with the same balances, contracts and nonces, without seeding
// again; a new block goes on top of it.
func TestDirReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "43112")
	opts := Options{Dir: dir, NoAutoMine: true, Now: time.Now}
	c, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	seed := *c.Seed()
	mined := transfer(t, c, 12345)
	first := c.eth.BlockChain().GetBlockByNumber(1) // the seed's deployments
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	c2, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	head := c2.Head()
	if head.Hash() != mined.Hash() {
		t.Fatalf("reopened at block %d %s; want %d %s", head.NumberU64(), head.Hash(), mined.NumberU64(), mined.Hash())
	}
	if got := balance(t, c2, sink); got.Int64() != 12345 {
		t.Fatalf("balance of %s: got %s; want 12345", sink, got)
	}
	if *c2.Seed() != seed {
		t.Fatalf("seed: got %+v; want %+v", *c2.Seed(), seed)
	}
	if got := c2.eth.BlockChain().GetBlockByNumber(1); got.Hash() != first.Hash() {
		t.Fatalf("block 1: got %s; want %s", got.Hash(), first.Hash())
	}
	st, err := c2.eth.BlockChain().State()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.GetCode(seed.Token)) == 0 {
		t.Fatalf("no code at the seeded token %s", seed.Token)
	}
	if got, want := st.GetNonce(c2.accounts[1].Address), mined.Transactions()[0].Nonce()+1; got != want {
		t.Fatalf("dev1's nonce: got %d; want %d", got, want)
	}
	next := transfer(t, c2, 1)
	if next.NumberU64() != mined.NumberU64()+1 || next.ParentHash() != mined.Hash() {
		t.Fatalf("new block %d on %s; want %d on %s", next.NumberU64(), next.ParentHash(), mined.NumberU64()+1, mined.Hash())
	}
}

// TestDirOtherIDs: a directory whose chain was seeded with other ids (the
// messenger's own, its message's destination) is refused with a clear
// error, not taken over.
func TestDirOtherIDs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "43112")
	c, err := New(context.Background(), Options{Dir: dir, NoAutoMine: true, BlockchainID: common.Hash{1}})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	_, err = New(context.Background(), Options{Dir: dir, NoAutoMine: true, BlockchainID: common.Hash{2}})
	if err == nil || !strings.Contains(err.Error(), "reset the dev chains") {
		t.Fatalf("got %v; want an error that says to reset the dev chains", err)
	}
}

// TestDirIncompleteSeed: a directory without the seed record (a seeding
// that did not finish) is made again from the seed.
func TestDirIncompleteSeed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "43112")
	opts := Options{Dir: dir, NoAutoMine: true}
	c, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := c.Head().Hash()
	transfer(t, c, 1)
	c.Close()
	if err := os.Remove(filepath.Join(dir, seedFile)); err != nil {
		t.Fatal(err)
	}
	c2, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if got := c2.Head().Hash(); got != want {
		t.Fatalf("head %s; want the seed's %s", got, want)
	}
}

// TestDirKilled: a chain whose process is killed (SIGKILL, no Close)
// reopens at the last block it mined (each is synced to disk before
// SendBlock returns), with that block's state, and mines on top.
func TestDirKilled(t *testing.T) {
	if dir := os.Getenv("AVAEDGE_EVM_KILL_DIR"); dir != "" {
		killedChild(dir)
		return
	}
	dir := filepath.Join(t.TempDir(), "43112")
	const blocks = 20
	cmd := exec.Command(os.Args[0], "-test.run=^TestDirKilled$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AVAEDGE_EVM_KILL_DIR="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seedHead, last uint64
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		n, _ := strconv.ParseUint(f[1], 10, 64)
		switch f[0] {
		case "seed":
			seedHead = n
		case "block":
			last = n
		}
		if last == seedHead+blocks {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if last != seedHead+blocks {
		t.Fatalf("the child mined up to block %d; want %d", last, seedHead+blocks)
	}
	c, err := New(context.Background(), Options{Dir: dir, NoAutoMine: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := c.Head().NumberU64()
	t.Logf("killed after block %d; reopened at %d", last, head)
	if head != last {
		t.Fatalf("reopened at block %d; want %d", head, last)
	}
	// One transfer of 1 wei a block after the seed.
	if got, want := balance(t, c, sink), int64(head-seedHead); got.Int64() != want {
		t.Fatalf("balance at block %d: got %s; want %d", head, got, want)
	}
	next := transfer(t, c, 1)
	if next.NumberU64() != head+1 {
		t.Fatalf("new block %d; want %d", next.NumberU64(), head+1)
	}
}

// killedChild is TestDirKilled's child process: it opens a chain in dir,
// prints the seed's last block, then mines transfers, printing each block,
// until it is killed.
func killedChild(dir string) {
	c, err := New(context.Background(), Options{Dir: dir, NoAutoMine: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("seed", c.Seed().Head)
	for {
		fmt.Println("block", transfer(fatalTB{}, c, 1).NumberU64())
	}
}

// fatalTB is a testing.TB for killedChild, which has no test to fail.
type fatalTB struct{ testing.TB }

func (fatalTB) Helper() {}
func (fatalTB) Fatal(args ...any) {
	fmt.Fprintln(os.Stderr, args...)
	os.Exit(2)
}
