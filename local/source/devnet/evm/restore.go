package evm

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// The pre-funded accounts' keys are public (ewoq is avalanchego's
// well-known test key; the others are derived from constants), so anyone
// can move their funds away, and every other app that relies on them
// would fail with "insufficient funds". The chain makes that pointless
// instead of refusing it: after each block mined once seeding is done, an
// account left below half its genesis balance is credited back up to it
// by a withdrawal (EIP-4895, a balance credit without a transaction or a
// signature) in a block sealed right away.

// genesisBalance returns the genesis balance of the i-th dev account.
func (c *Chain) genesisBalance(i int) *big.Int {
	switch {
	case i > 0:
		return devBalance
	case c.opts.EwoqBalance != nil:
		return c.opts.EwoqBalance
	}
	return ewoqBalance
}

// restoring returns the withdrawals that bring the dev accounts left below
// half their genesis balance at the head back up to it, numbered from
// c.withdrawals. The caller holds sealMu.
func (c *Chain) restoring() (types.Withdrawals, error) {
	st, err := c.eth.BlockChain().State()
	if err != nil {
		return nil, fmt.Errorf("evm: head state: %w", err)
	}
	var ws types.Withdrawals
	gwei := big.NewInt(params.GWei)
	for i, a := range c.accounts {
		want := c.genesisBalance(i)
		have := st.GetBalance(a.Address).ToBig()
		if new(big.Int).Lsh(have, 1).Cmp(want) >= 0 {
			continue
		}
		deficit := new(big.Int).Quo(new(big.Int).Sub(want, have), gwei)
		ws = append(ws, &types.Withdrawal{Index: c.withdrawals, Address: a.Address, Amount: deficit.Uint64()})
		c.withdrawals++
	}
	if len(ws) > 0 {
		if err := c.saveWithdrawals(c.withdrawals); err != nil {
			return nil, fmt.Errorf("evm: withdrawals counter: %w", err)
		}
	}
	return ws, nil
}
