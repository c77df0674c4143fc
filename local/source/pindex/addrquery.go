package pindex

import (
	"context"
	"database/sql"
	"errors"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Activity is the latest thing a chain's transactions did to a set of
// addresses' UTXOs: made one, or spent one (Consumed).
type Activity struct {
	Time     int64
	Height   uint64
	TxID     string
	UTXOID   string
	Consumed bool
}

// LastActivity returns the latest block of chain whose transactions made or
// spent a UTXO any of addrs may spend (a spend wins over a creation in the
// same block); ok is false when there is none.
func (ix *Index) LastActivity(ctx context.Context, chain avanet.Chain, addrs []avax.ShortID) (Activity, bool, error) {
	if len(addrs) == 0 {
		return Activity{}, false, nil
	}
	args := []any{}
	for _, a := range addrs {
		args = append(args, a.String())
	}
	args = append(args, string(chain))
	m := marks(len(addrs))
	var made, spent Activity
	err := ix.st.r.QueryRowContext(ctx, `SELECT u.time, u.height, COALESCE(u.emitted_by, u.tx), u.id
		FROM utxo_addrs a JOIN utxos u ON u.id = a.utxo WHERE a.addr IN (`+m+`) AND a.created_on = ?
		ORDER BY u.height DESC, u.id DESC LIMIT 1`, args...).Scan(&made.Time, &made.Height, &made.TxID, &made.UTXOID)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Activity{}, false, err
	}
	found := err == nil
	err = ix.st.r.QueryRowContext(ctx, `SELECT s.time, s.height, s.tx, s.utxo
		FROM utxo_addrs a JOIN spends s ON s.utxo = a.utxo WHERE a.addr IN (`+m+`) AND s.chain = ?
		ORDER BY s.height DESC, s.utxo DESC LIMIT 1`, args...).Scan(&spent.Time, &spent.Height, &spent.TxID, &spent.UTXOID)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return made, found, nil
	case err != nil:
		return Activity{}, false, err
	case !found || spent.Height >= made.Height:
		spent.Consumed = true
		return spent, true, nil
	}
	return made, true, nil
}

// RewardUTXOs returns the reward UTXOs (Reward set) any of addrs may spend,
// or every one when addrs is empty, oldest first.
func (ix *Index) RewardUTXOs(ctx context.Context, addrs []avax.ShortID) ([]*UTXO, error) {
	q := `SELECT ` + utxoColumns + ` FROM utxos u LEFT JOIN spends s ON s.utxo = u.id WHERE u.reward IS NOT NULL AND u.reward != ''`
	args := []any{}
	if len(addrs) > 0 {
		q += ` AND u.id IN (SELECT utxo FROM utxo_addrs WHERE addr IN (` + marks(len(addrs)) + `))`
		for _, a := range addrs {
			args = append(args, a.String())
		}
	}
	return ix.queryUTXOs(ctx, q+` ORDER BY u.height, u.tx, u.output_index`, args...)
}
