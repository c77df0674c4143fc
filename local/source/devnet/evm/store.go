package evm

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
)

// A chain kept in Options.Dir is go-ethereum's own database, in the layout
// geth itself uses (Dir/geth/chaindata, pebble; the ancient store under
// it), with the hash state scheme in archive mode: the state of every block
// is committed to disk with it, so a process killed at any point reopens at
// the last block it wrote, never at a head whose state is missing.
//
// Beside it, seedFile records what seeding did. It is written, after the
// database is synced, once seeding is done: a directory without it is new
// or was left by a seeding that did not finish, and is made again.

// seedFile names the record of the seeding in Options.Dir.
const seedFile = "avaedge-seed.json"

// withdrawalsKey is the database key of the next withdrawal index, written
// before the block that uses it: a block on disk never has an index the
// key does not count.
var withdrawalsKey = []byte("avaedge-evm-next-withdrawal")

// seedRecord is seedFile's content.
type seedRecord struct {
	// Version is 1.
	Version int `json:"version"`
	// Seed is what seeding did; nil with Options.NoSeed.
	Seed *Seed `json:"seed"`
	// BlockchainID and ICMDestination are the Options the seed was made
	// with: the messenger's own id and its message's destination are in
	// the chain's state, so a devnet that names other ids (another
	// local.seed) cannot take the chain over.
	BlockchainID   common.Hash `json:"blockchainId"`
	ICMDestination common.Hash `json:"icmDestination"`
}

// openDir makes dir ready for the node and reports whether the chain must
// be seeded: true when dir holds no complete chain (it is then emptied),
// false with the recorded seed otherwise, which must have been made with
// opts' ids.
func openDir(dir string, opts Options) (fresh bool, seed *Seed, err error) {
	b, err := os.ReadFile(filepath.Join(dir, seedFile))
	switch {
	case err == nil:
		var rec seedRecord
		if err := json.Unmarshal(b, &rec); err != nil || rec.Version != 1 {
			return false, nil, fmt.Errorf("evm: %s: not a seed record (%v); reset the dev chains to make it again", filepath.Join(dir, seedFile), err)
		}
		if rec.BlockchainID != opts.BlockchainID || rec.ICMDestination != opts.ICMDestination {
			return false, nil, fmt.Errorf("evm: the chain in %s was made with blockchain id %s and ICM destination %s, not %s and %s (another devnet seed?); reset the dev chains to make it again",
				dir, rec.BlockchainID, rec.ICMDestination, opts.BlockchainID, opts.ICMDestination)
		}
		return false, rec.Seed, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, nil, fmt.Errorf("evm: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, nil, fmt.Errorf("evm: clearing %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, nil, fmt.Errorf("evm: %w", err)
	}
	return true, nil, nil
}

// diskConfig bounds go-ethereum's caches for a chain on disk: its defaults
// are a full node's (2 GB for the database alone), and a dev chain holds a
// few megabytes of state. Archive mode commits every block's state.
func diskConfig(c *ethconfig.Config) {
	c.NoPruning = true
	c.StateScheme = "hash"
	c.DatabaseCache = 16
	c.DatabaseHandles = 64
	c.TrieCleanCache = 16
	c.TrieDirtyCache = 0
	c.SnapshotCache = 0
}

// recordSeed syncs the chain's database and then writes seedFile, so that
// the record never names blocks the database could lose.
func (c *Chain) recordSeed() error {
	if err := c.eth.ChainDb().SyncKeyValue(); err != nil {
		return fmt.Errorf("evm: sync: %w", err)
	}
	b, err := json.Marshal(seedRecord{Version: 1, Seed: c.seed, BlockchainID: c.opts.BlockchainID, ICMDestination: c.opts.ICMDestination})
	if err != nil {
		return err
	}
	path := filepath.Join(c.opts.Dir, seedFile)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("evm: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("evm: writing %s: %w", path, err)
	}
	return nil
}

// reopened checks a chain opened from Options.Dir against its seed record
// and reads the withdrawals counter.
func (c *Chain) reopened(seed *Seed) error {
	head := c.eth.BlockChain().CurrentBlock().Number.Uint64()
	if seed != nil && head < seed.Head {
		return fmt.Errorf("evm: %s holds block %d, before the seed's last block %d; reset the dev chains to make it again", c.opts.Dir, head, seed.Head)
	}
	c.seed = seed
	// No key: no withdrawal was sealed yet.
	if b, err := c.eth.ChainDb().Get(withdrawalsKey); err == nil && len(b) == 8 {
		c.withdrawals = binary.BigEndian.Uint64(b)
	}
	return nil
}

// saveWithdrawals records n as the next withdrawal index. The caller holds
// sealMu.
func (c *Chain) saveWithdrawals(n uint64) error {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return c.eth.ChainDb().Put(withdrawalsKey, b[:])
}
