package metricsapi

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver
)

// recStore keeps every chain's block records: the SQLite store (a file of
// the data directory) or the PostgreSQL one (pgstore.go). The Engine calls
// it under its write lock.
type recStore interface {
	// put stores r (names maps its ids to addresses).
	put(chainID uint64, r *blockRec, names []string) error
	// dropFrom deletes the blocks numbered from and above of chainID.
	dropFrom(chainID, from uint64) error
	// load calls fn for every stored block, in chain and block order.
	load(fn func(chainID, number uint64, rec []byte) error) error
	close() error
}

// store keeps every chain's block records in SQLite (Options.Path) so that
// a restarted Engine has its history: New replays them. Addresses are
// stored as text, not as the process's ids. The Engine calls it under its
// write lock.
type store struct {
	db         *sql.DB
	put1, drop *sql.Stmt
}

const storeSchema = `CREATE TABLE IF NOT EXISTS metrics_blocks (
	chain_id INTEGER NOT NULL,
	number INTEGER NOT NULL,
	rec BLOB NOT NULL,
	PRIMARY KEY (chain_id, number)
) WITHOUT ROWID`

func openStore(path string) (*store, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=10000")
	if err != nil {
		return nil, fmt.Errorf("metricsapi: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	s := &store{db: db}
	if _, err := db.Exec(storeSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("metricsapi: creating the schema in %s: %w", path, err)
	}
	if s.put1, err = db.Prepare(`INSERT OR REPLACE INTO metrics_blocks (chain_id, number, rec) VALUES (?, ?, ?)`); err == nil {
		s.drop, err = db.Prepare(`DELETE FROM metrics_blocks WHERE chain_id = ? AND number >= ?`)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("metricsapi: preparing statements: %w", err)
	}
	return s, nil
}

func (s *store) close() error { return s.db.Close() }

// put stores r (names maps its ids to addresses).
func (s *store) put(chainID uint64, r *blockRec, names []string) error {
	if _, err := s.put1.Exec(int64(chainID), int64(r.number), encodeRec(r, names)); err != nil {
		return fmt.Errorf("metricsapi: storing block %d of chain %d: %w", r.number, chainID, err)
	}
	return nil
}

// dropFrom deletes the blocks numbered from and above of chainID.
func (s *store) dropFrom(chainID, from uint64) error {
	if from > 1<<63-1 {
		return nil
	}
	if _, err := s.drop.Exec(int64(chainID), int64(from)); err != nil {
		return fmt.Errorf("metricsapi: deleting blocks >= %d of chain %d: %w", from, chainID, err)
	}
	return nil
}

// load calls fn for every stored block, in chain and block order.
func (s *store) load(fn func(chainID, number uint64, rec []byte) error) error {
	rows, err := s.db.Query(`SELECT chain_id, number, rec FROM metrics_blocks ORDER BY chain_id, number`)
	if err != nil {
		return fmt.Errorf("metricsapi: loading blocks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var chainID, number int64
		var rec []byte
		if err := rows.Scan(&chainID, &number, &rec); err != nil {
			return fmt.Errorf("metricsapi: loading blocks: %w", err)
		}
		if err := fn(uint64(chainID), uint64(number), rec); err != nil {
			return err
		}
	}
	return rows.Err()
}

// recVersion leads every encoded record.
const recVersion = 1

// encodeRec writes r as: version, uvarints ts gas txs contracts nSenders
// gpN, the big integers fees gpSum gpMax (length-prefixed magnitudes, all
// non-negative), then the active addresses and the deployers (a count,
// then length-prefixed strings).
func encodeRec(r *blockRec, names []string) []byte {
	b := make([]byte, 0, 64+44*(len(r.addrs)+len(r.deployers)))
	b = append(b, recVersion)
	for _, v := range []uint64{r.ts, r.gas, uint64(r.txs), uint64(r.contracts), uint64(r.nSenders), uint64(r.gpN)} {
		b = binary.AppendUvarint(b, v)
	}
	for _, x := range []*big.Int{r.fees, r.gpSum, r.gpMax} {
		var mag []byte
		if x != nil {
			mag = x.Bytes()
		}
		b = binary.AppendUvarint(b, uint64(len(mag)))
		b = append(b, mag...)
	}
	for _, ids := range [][]uint32{r.addrs, r.deployers} {
		b = binary.AppendUvarint(b, uint64(len(ids)))
		for _, id := range ids {
			b = binary.AppendUvarint(b, uint64(len(names[id])))
			b = append(b, names[id]...)
		}
	}
	return b
}

var errBadRecord = errors.New("metricsapi: malformed stored block")

// decodeRec reads a record written by encodeRec, numbering its addresses
// with in.
func decodeRec(number uint64, b []byte, in *interner) (blockRec, error) {
	r := blockRec{number: number}
	if len(b) == 0 || b[0] != recVersion {
		return r, errBadRecord
	}
	b = b[1:]
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	chunk := func() ([]byte, bool) {
		n := uv()
		if b == nil || n > uint64(len(b)) {
			return nil, false
		}
		c := b[:n]
		b = b[n:]
		return c, true
	}
	var v [6]uint64
	for i := range v {
		v[i] = uv()
	}
	r.ts, r.gas, r.txs, r.contracts, r.nSenders, r.gpN = v[0], v[1], uint32(v[2]), uint32(v[3]), uint32(v[4]), uint32(v[5])
	for _, dst := range []**big.Int{&r.fees, &r.gpSum, &r.gpMax} {
		mag, ok := chunk()
		if !ok {
			return r, errBadRecord
		}
		if len(mag) > 0 {
			*dst = new(big.Int).SetBytes(mag)
		}
	}
	for _, dst := range []*[]uint32{&r.addrs, &r.deployers} {
		n := uv()
		if b == nil || n > uint64(len(b)) {
			return r, errBadRecord
		}
		ids := make([]uint32, 0, n)
		for range n {
			name, ok := chunk()
			if !ok {
				return r, errBadRecord
			}
			ids = append(ids, in.id(string(name)))
		}
		*dst = ids
	}
	if len(b) != 0 || r.nSenders > uint32(len(r.addrs)) {
		return r, errBadRecord
	}
	return r, nil
}
