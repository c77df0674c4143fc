// Package devnet is avaedge's deterministic local primary network, a
// generator of its history: BLS-keyed validators and delegators in every
// status, a subnet and an L1, and P- and X-Chain blocks of the transactions
// that made them (staking and rewards, subnets, chains, the L1's
// conversion and changes, imports and exports between the chains, an
// asset, transfers), stored in an index (local/source/pindex) as a
// followed node's blocks are. The same Config gives a byte-identical World
// on every machine: generation uses only seeded ChaCha8 streams, sorted
// slices and a fixed clock, never the wall clock or map order.
//
// The Data API handlers and the node's avm methods read the World's index,
// the node's info methods and the Warp signature aggregator the World
// itself (its nodes, their keys and the validator sets), so they agree with
// each other.
package devnet

import (
	"errors"
	"time"
)

// Genesis is the genesis time of the devnet (the local network's upgrade
// times are all at it too).
var Genesis = time.Date(2020, 12, 5, 5, 0, 0, 0, time.UTC)

// Config shapes a World. Zero values mean the documented defaults, which give
// a rich world.
type Config struct {
	// Seed selects the world; the same seed gives the same world. Zero means 1.
	Seed int64
	// Validators is the number of primary-network validator nodes. Zero means
	// 8; values below 5 are raised to 5 so that every validation status
	// appears.
	Validators int
	// Days is how much history the world has: its clock stands Days after
	// Genesis. Zero means 60; values below 20 are raised to 20.
	Days int
	// Now overrides the world's clock (the instant that decides which stakes
	// are pending, active or completed). It must lie after Genesis + 20 days.
	// Zero means Genesis + Days.
	Now time.Time
}

// ErrConfig means a Config cannot make a world.
var ErrConfig = errors.New("devnet: invalid config")

func (c Config) withDefaults() (Config, error) {
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Validators == 0 {
		c.Validators = 8
	}
	c.Validators = max(c.Validators, 5)
	if c.Validators > 200 {
		return c, errors.Join(ErrConfig, errors.New("at most 200 validators"))
	}
	if c.Days == 0 {
		c.Days = 60
	}
	c.Days = max(c.Days, 20)
	if c.Days > 3650 {
		return c, errors.Join(ErrConfig, errors.New("at most 3650 days"))
	}
	if c.Now.IsZero() {
		c.Now = Genesis.Add(time.Duration(c.Days) * 24 * time.Hour)
	} else {
		if c.Now.Before(Genesis.Add(20 * 24 * time.Hour)) {
			return c, errors.Join(ErrConfig, errors.New("Now must be at least 20 days after Genesis"))
		}
		c.Days = int(c.Now.Sub(Genesis) / (24 * time.Hour))
	}
	c.Now = c.Now.UTC().Truncate(time.Second)
	return c, nil
}
