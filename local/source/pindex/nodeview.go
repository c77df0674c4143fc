package pindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// What the index keeps so that the node's own JSON-RPC methods can be
// answered from it while the node is down (local/api/node.IndexMethods): the
// X-Chain's block and transaction bytes and JSON as the node encoded them,
// and the node's answers to the info methods that describe it.

// recordedMethods are the methods whose latest answers the index records,
// by endpoint path. Their answers describe the node itself (its id, IP,
// version, VMs, upgrade schedule, ACP votes, fees, network name), which
// nothing else in the index holds. Its peers and uptime are not recorded:
// only the running node knows them.
var recordedMethods = map[string][]string{
	pathInfo: {"info.acps", "info.getNodeID", "info.getNodeIP", "info.getNodeVersion", "info.getTxFee",
		"info.getVMs", "info.upgrades", "info.getNetworkName"},
	pathX: {"avm.getTxFee"},
}

// migrations add the columns of later versions to a store an earlier one
// made: table, column, type.
var migrations = [][3]string{
	{"blocks", "bytes", "BLOB"},
	{"blocks", "json", "TEXT"},
	{"txs", "bytes", "BLOB"},
	{"utxos", "reward", "TEXT"},     // a reward UTXO's kind
	{"utxos", "emitted_by", "TEXT"}, // the RewardValidatorTx that paid a reward UTXO (its tx is the staking tx)
	{"assets", "cap", "TEXT"},       // fixed or variable (NULL before version 2: derived then)
	{"assets", "type", "TEXT"},      // secp256k1 or nft
}

// migrate adds missing columns. Rows stored before them have NULLs there:
// the node methods answer "not found" for those blocks and transactions.
func migrate(db *sql.DB) error {
	for _, m := range migrations {
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, m[0])
		if err != nil {
			return err
		}
		found := false
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return err
			}
			found = found || name == m[1]
		}
		rows.Close()
		if found {
			continue
		}
		if _, err := db.Exec(`ALTER TABLE ` + m[0] + ` ADD COLUMN ` + m[1] + ` ` + m[2]); err != nil {
			return fmt.Errorf("adding %s.%s: %w", m[0], m[1], err)
		}
	}
	return nil
}

// fetchXGenesis reads the X-Chain's genesis transaction: the AVAX asset's
// CreateAssetTx, whose id is the asset's.
func (ix *Index) fetchXGenesis(ctx context.Context, f *RawBlock) error {
	var r struct {
		Tx json.RawMessage `json:"tx"`
	}
	if err := ix.rpc.Call(ctx, pathX, "avm.getTx", map[string]string{"txID": ix.net.AVAXAssetID, "encoding": "json"}, &r); err != nil {
		return err
	}
	f.Genesis = []json.RawMessage{r.Tx}
	return nil
}

// fetchTxBytes reads the signed bytes of an X-Chain block's transactions
// (avm.getTx, hexnc): the block bytes hold them, but only a parser of every
// tx type could cut them apart.
func (ix *Index) fetchTxBytes(ctx context.Context, f *RawBlock) error {
	var b blockJSON
	if err := json.Unmarshal(f.JSON, &b); err != nil {
		return err
	}
	for _, raw := range append(append([]json.RawMessage(nil), b.Txs...), f.Genesis...) {
		var t txJSON
		if err := json.Unmarshal(raw, &t); err != nil {
			return err
		}
		var r struct {
			Tx json.RawMessage `json:"tx"`
		}
		if err := ix.rpc.Call(ctx, pathX, "avm.getTx", map[string]string{"txID": t.ID, "encoding": "hexnc"}, &r); err != nil {
			return err
		}
		bs, err := signedTx(t.ID, r.Tx)
		if err != nil {
			return err
		}
		if f.TxBytes == nil {
			f.TxBytes = map[string][]byte{}
		}
		f.TxBytes[t.ID] = bs
	}
	return nil
}

// signedTx reads avm.getTx's tx in encoding hexnc, the signed bytes of the
// transaction id, which they must hash to.
func signedTx(id string, raw json.RawMessage) ([]byte, error) {
	b, err := hexAnswer(raw)
	if err != nil {
		return nil, fmt.Errorf("avm.getTx %s: %w", id, err)
	}
	if avax.Hash256(b).String() != id {
		return nil, fmt.Errorf("avm.getTx %s: the bytes hash to another id", id)
	}
	return b, nil
}

// RecordNode stores the node's current answers to the recorded methods.
// A method the node does not answer keeps its last recorded answer.
func (ix *Index) RecordNode(ctx context.Context) error {
	var errs []error
	for path, methods := range recordedMethods {
		for _, m := range methods {
			var r json.RawMessage
			if err := ix.rpc.Call(ctx, path, m, nil, &r); err != nil {
				errs = append(errs, err)
				continue
			}
			ix.writeMu.Lock()
			err := ix.st.setMeta("rpc:"+m, string(r))
			ix.writeMu.Unlock()
			if err != nil {
				return err
			}
		}
	}
	return errors.Join(errs...)
}

// Recorded returns the node's last recorded answer to method, one of the
// info methods without arguments or avm.getTxFee.
func (ix *Index) Recorded(method string) (json.RawMessage, bool) {
	var v string
	err := ix.st.r.QueryRow(`SELECT value FROM meta WHERE key=?`, "rpc:"+method).Scan(&v)
	if err != nil {
		return nil, false
	}
	return json.RawMessage(v), true
}

// XBlock returns the bytes and the node's JSON of the X-Chain block with
// id, or at height when id is "".
func (ix *Index) XBlock(id string, height uint64) (bytes []byte, js json.RawMessage, ok bool) {
	q, arg := `SELECT bytes, json FROM blocks WHERE chain='X' AND height=?`, any(height)
	if id != "" {
		q, arg = `SELECT bytes, json FROM blocks WHERE chain='X' AND id=?`, id
	}
	var j sql.NullString
	if err := ix.st.r.QueryRow(q, arg).Scan(&bytes, &j); err != nil || bytes == nil || !j.Valid {
		return nil, nil, false
	}
	return bytes, json.RawMessage(j.String), true
}

// XTx returns the signed bytes and the node's JSON of an X-Chain
// transaction.
func (ix *Index) XTx(id string) (bytes []byte, js json.RawMessage, ok bool) {
	var body string
	if err := ix.st.r.QueryRow(`SELECT bytes, body FROM txs WHERE chain='X' AND id=?`, id).Scan(&bytes, &body); err != nil || bytes == nil {
		return nil, nil, false
	}
	return bytes, json.RawMessage(body), true
}

// XUTXOs returns the unspent outputs addr may spend on the X-Chain: its own
// (source X) or those exported to it from source and not yet imported,
// newest first: the order of avalanchego's per-address UTXO list, to which
// each accepted transaction adds its outputs in index order at the head.
// Only ID and Bytes are set.
func (ix *Index) XUTXOs(ctx context.Context, source avanet.Chain, addr avax.ShortID) ([]*UTXO, error) {
	rows, err := ix.st.r.QueryContext(ctx, `SELECT u.id, u.bytes FROM utxo_unspent a
		CROSS JOIN utxos u ON u.id = a.utxo
		LEFT JOIN spends s ON s.utxo = u.id
		LEFT JOIN txs t ON t.id = u.tx
		WHERE a.addr=? AND a.chain='X' AND u.created_on=? AND s.utxo IS NULL
		ORDER BY u.height DESC, t.idx DESC, u.output_index DESC`, addr.String(), string(source))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*UTXO
	for rows.Next() {
		u := &UTXO{Chain: avanet.ChainX, CreatedOn: source}
		if err := rows.Scan(&u.ID, &u.Bytes); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// BlockchainIDs returns the ids of the chains created on the P-Chain.
func (ix *Index) BlockchainIDs(ctx context.Context) ([]string, error) {
	rows, err := ix.st.r.QueryContext(ctx, `SELECT id FROM blockchains ORDER BY height, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
