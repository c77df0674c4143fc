package pindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/avaedge/avaedge/local/source/pgpipe"

	"github.com/avaedge/avaedge/avanet"
)

// pgBatchSize is how many statements one round trip sends.
const pgBatchSize = 1000

// pgBatch is the PostgreSQL store's Batch: one transaction whose statements
// are queued and sent pgBatchSize at a time (pipelined), in order; a read
// sends what is queued first. The writes that depend on stored rows (a
// spend's address rows, an exported UTXO's spender) are single statements
// reading them in the database, so a block's rows go in one round trip.
type pgBatch struct {
	tx  pgx.Tx
	ctx context.Context
	p   pgpipe.Pipe
}

func newPGBatch(ctx context.Context, tx pgx.Tx) *pgBatch {
	return &pgBatch{tx: tx, ctx: ctx, p: pgpipe.Pipe{Tx: tx, Ctx: ctx, Size: pgBatchSize}}
}

func (b *pgBatch) queue(sql string, args ...any) error { return b.p.Queue(sql, args...) }

// flush sends the queued statements.
func (b *pgBatch) flush() error { return b.p.Flush() }

// queryRow sends what is queued, then reads a row.
func (b *pgBatch) queryRow(sql string, args []any, dst ...any) error {
	if err := b.flush(); err != nil {
		return err
	}
	return b.tx.QueryRow(b.ctx, sql, args...).Scan(dst...)
}

func (b *pgBatch) BlockTime(chain avanet.Chain, height uint64) (int64, error) {
	var t int64
	err := b.queryRow(`SELECT time FROM blocks WHERE chain=$1 AND height=$2`, []any{string(chain), int64(height)}, &t)
	return t, err
}

func (b *pgBatch) BlockID(chain avanet.Chain, height uint64) (string, error) {
	var id string
	err := b.queryRow(`SELECT id FROM blocks WHERE chain=$1 AND height=$2`, []any{string(chain), int64(height)}, &id)
	return id, err
}

// Block stores a block, its transactions' ids as a JSON array.
func (b *pgBatch) Block(bl *Block, bytes []byte, js json.RawMessage) error {
	txs, _ := json.Marshal(bl.Txs)
	var jsText *string // NULL unless kept
	if js != nil {
		s := string(js)
		jsText = &s
	}
	return b.queue(`INSERT INTO blocks (chain, height, id, parent, time, type, size, txs, bytes, json) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		string(bl.Chain), int64(bl.Height), bl.ID, bl.Parent, bl.Time, bl.Type, bl.Size, string(txs), bytes, jsText)
}

func (b *pgBatch) Tx(t *Tx, signed []byte) error {
	return b.queue(`INSERT INTO txs (id, chain, height, idx, type, time, body, bytes) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
		t.ID, string(t.Chain), int64(t.Height), t.Index, t.Type, t.Time, string(t.Body), signed)
}

// pgInsertUTXO is the utxos row of a UTXO, reward and emitted_by NULL
// unless it was paid.
const pgInsertUTXO = `INSERT INTO utxos (id, chain, created_on, height, time, tx, output_index, asset, amount, locktime, threshold, addresses,
	stake_locktime, staked, stake_start, stake_end, bytes, reward, emitted_by)
	VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9::numeric,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19)`

func (b *pgBatch) insertUTXO(u *UTXO, reward, emittedBy *string) error {
	staked := 0
	if u.Staked {
		staked = 1
	}
	return b.queue(pgInsertUTXO, u.ID, string(u.Chain), string(u.CreatedOn), int64(u.Height), u.Time, u.TxID, int64(u.OutputIndex), u.AssetID,
		strconv.FormatUint(u.Amount, 10), int64(u.Locktime), int64(u.Threshold), joinAddrs(u.Addresses), int64(u.StakeLocktime), staked,
		int64(u.StakeStart), int64(u.StakeEnd), nonNilBytes(u.Bytes), reward, emittedBy)
}

// nonNilBytes is p, or an empty slice for nil: the column is NOT NULL.
func nonNilBytes(p []byte) []byte {
	if p == nil {
		return []byte{}
	}
	return p
}

// pgInsertOwnedUTXO is the utxos row of a UTXO of its own chain's
// transaction and its address rows (owned's, for a UTXO no other chain
// may have spent yet), in one statement: a catch-up's most frequent rows,
// parsed and planned once instead of four times.
const pgInsertOwnedUTXO = `WITH u AS (INSERT INTO utxos (id, chain, created_on, height, time, tx, output_index, asset, amount, locktime, threshold,
		addresses, stake_locktime, staked, stake_start, stake_end, bytes)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9::numeric,$10,$11,$12,$13,$14,$15,$16,$17)),
	a AS (INSERT INTO utxo_addrs (addr, chain, utxo, created_on, height) SELECT x, $2, $1, $3, $4 FROM unnest($18::text[]) x
		ON CONFLICT DO NOTHING),
	t AS (INSERT INTO addr_txs (addr, chain, height, idx, tx) SELECT x, $3, $4, $19, $6 FROM unnest($18::text[]) x ON CONFLICT DO NOTHING)
	INSERT INTO utxo_unspent (addr, chain, utxo, created_on, height) SELECT x, $2, $1, $3, $4 FROM unnest($18::text[]) x ON CONFLICT DO NOTHING`

func (b *pgBatch) UTXO(u *UTXO, txIndex int) error {
	if u.Chain != u.CreatedOn || len(u.Addresses) == 0 {
		if err := b.insertUTXO(u, nil, nil); err != nil {
			return err
		}
		return b.owned(u, u.TxID, u.Height, txIndex)
	}
	staked := 0
	if u.Staked {
		staked = 1
	}
	return b.queue(pgInsertOwnedUTXO, u.ID, string(u.Chain), string(u.CreatedOn), int64(u.Height), u.Time, u.TxID, int64(u.OutputIndex), u.AssetID,
		strconv.FormatUint(u.Amount, 10), int64(u.Locktime), int64(u.Threshold), joinAddrs(u.Addresses), int64(u.StakeLocktime), staked,
		int64(u.StakeStart), int64(u.StakeEnd), nonNilBytes(u.Bytes), addrStrings(u.Addresses), txIndex)
}

func (b *pgBatch) Paid(u *UTXO) error {
	reward, by := u.Reward, u.EmittedBy
	if err := b.insertUTXO(u, &reward, &by); err != nil {
		return err
	}
	// The paying transaction may be in an earlier block.
	var height int64
	var idx int
	if err := b.queryRow(`SELECT height, idx FROM txs WHERE id=$1 AND chain=$2`, []any{u.EmittedBy, string(u.CreatedOn)}, &height, &idx); err != nil {
		return fmt.Errorf("the paying tx %s: %w", u.EmittedBy, err)
	}
	return b.owned(u, u.EmittedBy, uint64(height), idx)
}

// owned stores the address rows of UTXO u, as the SQLite store's owned
// does: who may spend it, that it is unspent (unless the other chain's
// follower stored its import's spend already: then the spender touched
// its addresses too), and that tx touched its addresses.
func (b *pgBatch) owned(u *UTXO, tx string, txHeight uint64, idx int) error {
	addrs := make([]string, len(u.Addresses))
	for i, a := range u.Addresses {
		addrs[i] = a.String()
	}
	if len(addrs) == 0 {
		return nil
	}
	chain, created := string(u.Chain), string(u.CreatedOn)
	if err := b.queue(`INSERT INTO utxo_addrs (addr, chain, utxo, created_on, height) SELECT a, $2, $3, $4, $5 FROM unnest($1::text[]) a
		ON CONFLICT DO NOTHING`, addrs, chain, u.ID, created, int64(u.Height)); err != nil {
		return err
	}
	if err := b.queue(`INSERT INTO addr_txs (addr, chain, height, idx, tx) SELECT a, $2, $3, $4, $5 FROM unnest($1::text[]) a
		ON CONFLICT DO NOTHING`, addrs, created, int64(txHeight), idx, tx); err != nil {
		return err
	}
	if u.Chain == u.CreatedOn {
		return b.queue(`INSERT INTO utxo_unspent (addr, chain, utxo, created_on, height) SELECT a, $2, $3, $4, $5 FROM unnest($1::text[]) a
			ON CONFLICT DO NOTHING`, addrs, chain, u.ID, created, int64(u.Height))
	}
	if err := b.queue(`INSERT INTO addr_txs (addr, chain, height, idx, tx)
		SELECT a, t.chain, t.height, t.idx, t.id FROM spends s JOIN txs t ON t.id = s.tx, unnest($1::text[]) a WHERE s.utxo=$2
		ON CONFLICT DO NOTHING`, addrs, u.ID); err != nil {
		return err
	}
	return b.queue(`INSERT INTO utxo_unspent (addr, chain, utxo, created_on, height) SELECT a, $2, $3, $4, $5 FROM unnest($1::text[]) a
		WHERE NOT EXISTS (SELECT 1 FROM spends s JOIN txs t ON t.id = s.tx WHERE s.utxo=$3)
		ON CONFLICT DO NOTHING`, addrs, chain, u.ID, created, int64(u.Height))
}

// Spend records the spend, the spender's touch of the spent UTXO's
// addresses and that they no longer hold it unspent; a UTXO another chain
// exported and its follower has not stored yet gets them when it is
// stored (owned).
func (b *pgBatch) Spend(s *Spend) error {
	return b.queue(`WITH s AS (INSERT INTO spends (utxo, tx, chain, height, time) VALUES ($1,$2,$3,$4,$5)
			ON CONFLICT (utxo) DO UPDATE SET tx=EXCLUDED.tx, chain=EXCLUDED.chain, height=EXCLUDED.height, time=EXCLUDED.time),
		a AS (INSERT INTO addr_txs (addr, chain, height, idx, tx)
			SELECT x, $3, $4, $6, $2 FROM utxos u, unnest(string_to_array(NULLIF(u.addresses, ''), ',')) x WHERE u.id=$1
			ON CONFLICT DO NOTHING)
		DELETE FROM utxo_unspent x USING utxos u WHERE u.id=$1 AND x.chain=u.chain AND x.utxo=u.id
			AND x.addr = ANY(string_to_array(NULLIF(u.addresses, ''), ','))`,
		s.UTXO, s.Tx, string(s.Chain), int64(s.Height), s.Time, s.Index)
}

func (b *pgBatch) Asset(a *Asset, chain avanet.Chain, height uint64) error {
	return b.queue(`INSERT INTO assets (id, chain, name, symbol, denomination, height, cap, type) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
		a.ID, string(chain), a.Name, a.Symbol, int64(a.Denomination), int64(height), a.Cap, a.Type)
}

func (b *pgBatch) Subnet(id string, height uint64, time int64) error {
	return b.queue(`INSERT INTO subnets (id, tx, height, time) VALUES ($1,$2,$3,$4)`, id, id, int64(height), time)
}

func (b *pgBatch) SubnetOwner(subnet, tx string, height uint64, o *Owner) error {
	return b.queue(`INSERT INTO subnet_owners (subnet, height, tx, locktime, threshold, addresses) VALUES ($1,$2,$3,$4,$5,$6)`,
		subnet, int64(height), tx, int64(o.Locktime), int64(o.Threshold), joinAddrs(o.Addresses))
}

func (b *pgBatch) Blockchain(c *Blockchain) error {
	return b.queue(`INSERT INTO blockchains (id, subnet, name, vm, genesis, height, time) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
		c.ID, c.SubnetID, c.Name, c.VMID, nonNilBytes(c.Genesis), int64(c.Height), c.Time)
}

func (b *pgBatch) Conversion(subnet string, c *Conversion) error {
	return b.queue(`INSERT INTO conversions (subnet, tx, chain_id, address, height, time) VALUES ($1,$2,$3,$4,$5,$6)`,
		subnet, c.TxID, c.ChainID, c.Address, int64(c.Height), c.Time)
}

func (b *pgBatch) Stake(s *Stake) error {
	return b.queue(`INSERT INTO stakes (tx, seq, kind, node, subnet, weight, start, "end", fee, reward_owner, bls_key, bls_pop, validation_id,
		balance, height, time) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)`,
		s.TxID, int64(s.Seq), s.Kind, s.NodeID.String(), s.SubnetID, int64(s.Weight), int64(s.Start), int64(s.End), int64(s.Fee),
		joinAddrs(s.RewardOwner), s.BLSKey, s.BLSPoP, s.ValidationID, int64(s.Balance), int64(s.Height), s.Time)
}

func (b *pgBatch) StakeEnd(stake, tx, kind string, height uint64, time int64) error {
	return b.queue(`INSERT INTO stake_ends (stake, tx, kind, height, time) VALUES ($1,$2,$3,$4,$5)
		ON CONFLICT (stake) DO UPDATE SET tx=EXCLUDED.tx, kind=EXCLUDED.kind, height=EXCLUDED.height, time=EXCLUDED.time`,
		stake, tx, kind, int64(height), time)
}

func (b *pgBatch) LastStake(node, subnet, kind string) (string, error) {
	var stake string
	err := b.queryRow(`SELECT tx FROM stakes WHERE node=$1 AND subnet=$2 AND kind=$3 ORDER BY height DESC LIMIT 1`, []any{node, subnet, kind}, &stake)
	return stake, err
}

func (b *pgBatch) AssetTx(asset string, height uint64, idx int, tx string) error {
	return b.queue(`INSERT INTO asset_txs (asset, height, idx, tx) VALUES ($1,$2,$3,$4) ON CONFLICT DO NOTHING`, asset, int64(height), idx, tx)
}

func (b *pgBatch) L1Tx(validationID, tx string, balance, height uint64) error {
	return b.queue(`INSERT INTO l1_txs (validation_id, tx, balance, height) VALUES ($1,$2,$3,$4)
		ON CONFLICT (validation_id, tx) DO UPDATE SET balance=EXCLUDED.balance, height=EXCLUDED.height`, validationID, tx, int64(balance), int64(height))
}

func (b *pgBatch) AddBurned(avaxID string, chain avanet.Chain, from, to uint64) error {
	if err := b.flush(); err != nil {
		return err
	}
	return pgAddBurned(b.ctx, b.tx, avaxID, chain, from, to)
}

func (b *pgBatch) SetMeta(key, value string) error { return b.queue(pgUpsertMeta, key, value) }

// pgAddBurned is addBurned (sqlite_burned.go) in PostgreSQL.
func pgAddBurned(ctx context.Context, tx pgx.Tx, avaxID string, chain avanet.Chain, from, to uint64) error {
	fresh, err := pgBurnedBy(ctx, tx, avaxID, `s.chain = $2 AND s.height BETWEEN $3 AND $4`, string(chain), int64(from), int64(min(to, math.MaxInt64)))
	if err != nil {
		return err
	}
	pending, err := pgBurnedBy(ctx, tx, avaxID, `s.tx IN (SELECT tx FROM burn_pending)`)
	if err != nil {
		return err
	}
	return pgTotalBurned(ctx, tx, append(fresh, pending...), "")
}

// pgResetBurned is resetBurned in PostgreSQL.
func pgResetBurned(ctx context.Context, tx pgx.Tx, avaxID string, chain avanet.Chain) error {
	if _, err := tx.Exec(ctx, `DELETE FROM burn_pending WHERE chain = $1`, string(chain)); err != nil {
		return err
	}
	all, err := pgBurnedBy(ctx, tx, avaxID, `s.chain = $2`, string(chain))
	if err != nil {
		return err
	}
	return pgTotalBurned(ctx, tx, all, chain)
}

// pgTotalBurned is totalBurned in PostgreSQL.
func pgTotalBurned(ctx context.Context, tx pgx.Tx, burns []txBurn, reset avanet.Chain) error {
	add := map[string]uint64{}
	for _, b := range burns {
		if b.missing {
			if _, err := tx.Exec(ctx, `INSERT INTO burn_pending (tx, chain, height) VALUES ($1,$2,$3) ON CONFLICT DO NOTHING`, b.tx, b.chain, b.height); err != nil {
				return err
			}
			continue
		}
		add[b.chain] += b.burned
		if _, err := tx.Exec(ctx, `DELETE FROM burn_pending WHERE tx = $1`, b.tx); err != nil {
			return err
		}
	}
	for _, c := range []string{string(avanet.ChainP), string(avanet.ChainX)} {
		if _, ok := add[c]; !ok && c != string(reset) {
			continue
		}
		var cur uint64
		var s string
		switch err := tx.QueryRow(ctx, `SELECT value FROM meta WHERE key=$1`, "burned:"+c).Scan(&s); {
		case c == string(reset) || errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		default:
			if cur, err = parseMetaUint("burned:"+c, s); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, pgUpsertMeta, "burned:"+c, strconv.FormatUint(cur+add[c], 10)); err != nil {
			return err
		}
	}
	return nil
}

// pgBurnedBy is burnedBy in PostgreSQL: where's parameters start at $2
// ($1 is avaxID).
func pgBurnedBy(ctx context.Context, tx pgx.Tx, avaxID, where string, args ...any) ([]txBurn, error) {
	rows, err := tx.Query(ctx, `WITH
		i AS (SELECT s.tx, s.chain, MAX(s.height) AS height,
				SUM(CASE WHEN u.asset = $1 THEN u.amount ELSE 0 END) AS v, COUNT(*) - COUNT(u.id) AS missing
			FROM spends s LEFT JOIN utxos u ON u.id = s.utxo WHERE `+where+` GROUP BY s.tx, s.chain)
		SELECT i.tx, i.chain, i.height, i.missing, (i.v
			- COALESCE((SELECT SUM(o.amount) FROM utxos o WHERE COALESCE(o.emitted_by, o.tx) = i.tx AND o.emitted_by IS NULL AND o.asset = $1), 0)
			- COALESCE((SELECT SUM(l.balance) FROM l1_txs l WHERE l.tx = i.tx), 0))::bigint
		FROM i`, append([]any{avaxID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanBurns(rows)
}
