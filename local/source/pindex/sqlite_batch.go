package pindex

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// sqliteBatch is the SQLite store's Batch: one transaction of the writer.
type sqliteBatch struct{ tx *sql.Tx }

func (b *sqliteBatch) exec(q string, args ...any) error {
	_, err := b.tx.Exec(q, args...)
	return err
}

// BlockTime reads a block's time through blocks_height (see schema).
func (b *sqliteBatch) BlockTime(chain avanet.Chain, height uint64) (int64, error) {
	var t int64
	err := b.tx.QueryRow(`SELECT time FROM blocks INDEXED BY blocks_height WHERE chain=? AND height=?`, string(chain), height).Scan(&t)
	return t, err
}

func (b *sqliteBatch) BlockID(chain avanet.Chain, height uint64) (string, error) {
	var id string
	err := b.tx.QueryRow(blockIDQuery, string(chain), height).Scan(&id)
	return id, err
}

// Block stores a block, its transactions' ids as a JSON array.
func (b *sqliteBatch) Block(bl *Block, bytes []byte, js json.RawMessage) error {
	txs, _ := json.Marshal(bl.Txs)
	var raw, jsText any // NULL unless kept (X-avanet.Chain blocks)
	if bytes != nil {
		raw = bytes
	}
	if js != nil {
		jsText = string(js)
	}
	return b.exec(`INSERT INTO blocks (chain, height, id, parent, time, type, size, txs, bytes, json) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		string(bl.Chain), bl.Height, bl.ID, bl.Parent, bl.Time, bl.Type, bl.Size, string(txs), raw, jsText)
}

func (b *sqliteBatch) Tx(t *Tx, signed []byte) error {
	return b.exec(`INSERT INTO txs (id, chain, height, idx, type, time, body, bytes) VALUES (?,?,?,?,?,?,?,?)`,
		t.ID, string(t.Chain), t.Height, t.Index, t.Type, t.Time, string(t.Body), signed)
}

// insertUTXO is the utxos row of a UTXO, reward and emitted_by NULL unless
// it was paid.
const insertUTXO = `INSERT INTO utxos (id, chain, created_on, height, time, tx, output_index, asset, amount, locktime, threshold, addresses,
	stake_locktime, staked, stake_start, stake_end, bytes, reward, emitted_by) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

func (b *sqliteBatch) insertUTXO(u *UTXO, reward, emittedBy any) error {
	return b.exec(insertUTXO, u.ID, string(u.Chain), string(u.CreatedOn), u.Height, u.Time, u.TxID, u.OutputIndex, u.AssetID,
		strconv.FormatUint(u.Amount, 10), u.Locktime, u.Threshold, joinAddrs(u.Addresses), u.StakeLocktime, u.Staked, u.StakeStart, u.StakeEnd,
		u.Bytes, reward, emittedBy)
}

func (b *sqliteBatch) UTXO(u *UTXO, txIndex int) error {
	if err := b.insertUTXO(u, nil, nil); err != nil {
		return err
	}
	return b.owned(u, u.TxID, u.Height, txIndex)
}

func (b *sqliteBatch) Paid(u *UTXO) error {
	if err := b.insertUTXO(u, u.Reward, u.EmittedBy); err != nil {
		return err
	}
	// The paying transaction may be in an earlier block (a reward's
	// RewardValidatorTx is in the proposal block before its option block).
	var height uint64
	var idx int
	if err := b.tx.QueryRow(`SELECT height, idx FROM txs WHERE id=? AND chain=?`, u.EmittedBy, string(u.CreatedOn)).Scan(&height, &idx); err != nil {
		return fmt.Errorf("the paying tx %s: %w", u.EmittedBy, err)
	}
	return b.owned(u, u.EmittedBy, height, idx)
}

// owned stores the address rows of UTXO u, made by tx at txHeight and
// position idx of its own chain (u.CreatedOn): who may spend it
// (utxo_addrs), that it is unspent (utxo_unspent) and that tx touched
// their addresses (addr_txs). An exported output may have been imported
// (spent) by the other chain's follower already: then its spender touched
// them too, and it is not unspent.
func (b *sqliteBatch) owned(u *UTXO, tx string, txHeight uint64, idx int) error {
	var spender struct {
		chain, tx string
		height    uint64
		idx       int
	}
	spent := false
	if u.Chain != u.CreatedOn {
		err := b.tx.QueryRow(`SELECT t.chain, t.id, t.height, t.idx FROM spends s JOIN txs t ON t.id = s.tx WHERE s.utxo=?`, u.ID).
			Scan(&spender.chain, &spender.tx, &spender.height, &spender.idx)
		switch {
		case err == nil:
			spent = true
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	for _, a := range u.Addresses {
		as := a.String()
		if err := b.exec(`INSERT OR IGNORE INTO utxo_addrs (addr, chain, utxo, created_on, height) VALUES (?,?,?,?,?)`,
			as, string(u.Chain), u.ID, string(u.CreatedOn), u.Height); err != nil {
			return err
		}
		if err := b.exec(`INSERT OR IGNORE INTO addr_txs (addr, chain, height, idx, tx) VALUES (?,?,?,?,?)`,
			as, string(u.CreatedOn), txHeight, idx, tx); err != nil {
			return err
		}
		if spent {
			if err := b.exec(`INSERT OR IGNORE INTO addr_txs (addr, chain, height, idx, tx) VALUES (?,?,?,?,?)`,
				as, spender.chain, spender.height, spender.idx, spender.tx); err != nil {
				return err
			}
			continue
		}
		if err := b.exec(`INSERT OR IGNORE INTO utxo_unspent (addr, chain, utxo, created_on, height) VALUES (?,?,?,?,?)`,
			as, string(u.Chain), u.ID, string(u.CreatedOn), u.Height); err != nil {
			return err
		}
	}
	return nil
}

// Spend records the spend; a UTXO another chain exported and its follower
// has not stored yet gets the address rows when it is stored (owned).
func (b *sqliteBatch) Spend(s *Spend) error {
	if err := b.exec(`INSERT OR REPLACE INTO spends (utxo, tx, chain, height, time) VALUES (?,?,?,?,?)`,
		s.UTXO, s.Tx, string(s.Chain), s.Height, s.Time); err != nil {
		return err
	}
	var chain, addrs string
	switch err := b.tx.QueryRow(`SELECT chain, addresses FROM utxos WHERE id=?`, s.UTXO).Scan(&chain, &addrs); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	for _, a := range storedAddrs(addrs) {
		if err := b.exec(`INSERT OR IGNORE INTO addr_txs (addr, chain, height, idx, tx) VALUES (?,?,?,?,?)`,
			a, string(s.Chain), s.Height, s.Index, s.Tx); err != nil {
			return err
		}
		if err := b.exec(`DELETE FROM utxo_unspent WHERE addr=? AND chain=? AND utxo=?`, a, chain, s.UTXO); err != nil {
			return err
		}
	}
	return nil
}

// joinAddrs is the stored form of a UTXO's or an owner's addresses: their
// CB58 ids, comma separated.
func joinAddrs(addrs []avax.ShortID) string {
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return strings.Join(s, ",")
}

func (b *sqliteBatch) Asset(a *Asset, chain avanet.Chain, height uint64) error {
	return b.exec(`INSERT INTO assets (id, chain, name, symbol, denomination, height, cap, type) VALUES (?,?,?,?,?,?,?,?)`,
		a.ID, string(chain), a.Name, a.Symbol, a.Denomination, height, a.Cap, a.Type)
}

func (b *sqliteBatch) Subnet(id string, height uint64, time int64) error {
	return b.exec(`INSERT INTO subnets (id, tx, height, time) VALUES (?,?,?,?)`, id, id, height, time)
}

func (b *sqliteBatch) SubnetOwner(subnet, tx string, height uint64, o *Owner) error {
	return b.exec(`INSERT INTO subnet_owners (subnet, height, tx, locktime, threshold, addresses) VALUES (?,?,?,?,?,?)`,
		subnet, height, tx, o.Locktime, o.Threshold, joinAddrs(o.Addresses))
}

func (b *sqliteBatch) Blockchain(c *Blockchain) error {
	return b.exec(`INSERT INTO blockchains (id, subnet, name, vm, genesis, height, time) VALUES (?,?,?,?,?,?,?)`,
		c.ID, c.SubnetID, c.Name, c.VMID, c.Genesis, c.Height, c.Time)
}

func (b *sqliteBatch) Conversion(subnet string, c *Conversion) error {
	return b.exec(`INSERT INTO conversions (subnet, tx, chain_id, address, height, time) VALUES (?,?,?,?,?,?)`,
		subnet, c.TxID, c.ChainID, c.Address, c.Height, c.Time)
}

func (b *sqliteBatch) Stake(s *Stake) error {
	return b.exec(`INSERT INTO stakes (tx, seq, kind, node, subnet, weight, start, end, fee, reward_owner, bls_key, bls_pop, validation_id, balance, height, time)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, s.TxID, s.Seq, s.Kind, s.NodeID.String(), s.SubnetID, int64(s.Weight), s.Start, s.End, s.Fee,
		joinAddrs(s.RewardOwner), s.BLSKey, s.BLSPoP, s.ValidationID, int64(s.Balance), s.Height, s.Time)
}

func (b *sqliteBatch) StakeEnd(stake, tx, kind string, height uint64, time int64) error {
	return b.exec(`INSERT OR REPLACE INTO stake_ends (stake, tx, kind, height, time) VALUES (?,?,?,?,?)`, stake, tx, kind, height, time)
}

func (b *sqliteBatch) LastStake(node, subnet, kind string) (string, error) {
	var stake string
	err := b.tx.QueryRow(`SELECT tx FROM stakes WHERE node=? AND subnet=? AND kind=? ORDER BY height DESC LIMIT 1`, node, subnet, kind).Scan(&stake)
	return stake, err
}

func (b *sqliteBatch) AssetTx(asset string, height uint64, idx int, tx string) error {
	return b.exec(`INSERT OR IGNORE INTO asset_txs (asset, height, idx, tx) VALUES (?,?,?,?)`, asset, height, idx, tx)
}

func (b *sqliteBatch) L1Tx(validationID, tx string, balance, height uint64) error {
	return b.exec(`INSERT OR REPLACE INTO l1_txs (validation_id, tx, balance, height) VALUES (?,?,?,?)`, validationID, tx, int64(balance), height)
}

func (b *sqliteBatch) AddBurned(avaxID string, chain avanet.Chain, from, to uint64) error {
	return addBurned(b.tx, avaxID, chain, from, to)
}

func (b *sqliteBatch) SetMeta(key, value string) error { return b.exec(upsertMeta, key, value) }
