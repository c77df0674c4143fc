package evmindex

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// The PostgreSQL store's reads of a transaction's details, NFTs, holders
// and ICM messages.

func (st *pgStore) Transaction(ctx context.Context, chainID uint64, hash common.Hash) (*TxDetail, error) {
	d := &TxDetail{}
	var from, to, input []byte
	var value, price string
	var maxFee, maxPrio sql.NullString
	err := st.pool.QueryRow(ctx, `SELECT block_number, tx_index, type, from_addr, to_addr, value::text, nonce, gas_limit, gas_used, gas_price::text,
		max_fee::text, max_priority_fee::text, status, input FROM txs WHERE chain_id=$1 AND hash=$2`, chainID, hash.Bytes()).Scan(&d.BlockNumber, &d.Index,
		&d.Type, &from, &to, &value, &d.Nonce, &d.GasLimit, &d.GasUsed, &price, &maxFee, &maxPrio, &d.Status, &input)
	if err != nil {
		return nil, notFound(err)
	}
	d.Hash, d.From, d.Input = hash, common.BytesToAddress(from), input
	d.MaxFeePerGas, d.MaxPriorityFeePerGas = storedTx(&d.Tx, to, value, price, maxFee, maxPrio)
	rows, err := st.query(ctx, `SELECT `+pgTransferCols+` FROM transfers t JOIN blocks b ON b.chain_id=t.chain_id AND b.number=t.block_number
		WHERE t.chain_id=$1 AND t.tx_hash=$2 ORDER BY t.seq`, chainID, hash.Bytes())
	if err != nil {
		return nil, fmt.Errorf("evmindex: tx transfers: %w", err)
	}
	if d.Transfers, err = scanTransfers(rows); err != nil {
		return nil, err
	}
	irows, err := st.query(ctx, `SELECT type, from_addr, to_addr, value::text, gas, gas_used, reverted FROM internal_txs WHERE chain_id=$1 AND tx_hash=$2 ORDER BY idx`,
		chainID, hash.Bytes())
	if d.Internals, err = listRows(irows, err, "internal txs", scanTxInternals()); err != nil {
		return nil, err
	}
	if d.InternalsOmitted, err = st.Untraced(ctx, chainID, d.BlockNumber); err != nil {
		return nil, err
	}
	if d.Teleporter, err = st.teleporterEvents(ctx, chainID, hash); err != nil {
		return nil, err
	}
	return d, nil
}

func (st *pgStore) teleporterEvents(ctx context.Context, chainID uint64, hash common.Hash) ([]TeleporterEvent, error) {
	rows, err := st.query(ctx, `SELECT log_index, message_id, direction, other_chain FROM teleporter_messages
		WHERE chain_id=$1 AND tx_hash=$2 ORDER BY log_index`, chainID, hash.Bytes())
	return listRows(rows, err, "teleporter messages", scanTeleporterEvents(hash))
}

// StoredNFTs reads the kept metadata of nfts in one query, whatever their
// contracts: the keys are two arrays, unnested and joined to the primary
// key (a round trip per contract had made a page of a wallet's collectibles
// a query per collection).
func (st *pgStore) StoredNFTs(ctx context.Context, chainID uint64, nfts []NFT) (map[NFTKey]NFT, error) {
	out := make(map[NFTKey]NFT, len(nfts))
	if len(nfts) == 0 {
		return out, nil
	}
	contracts, ids := make([][]byte, len(nfts)), make([][]byte, len(nfts))
	for i, n := range nfts {
		contracts[i], ids[i] = n.Contract.Bytes(), idBytes(n.TokenID)
	}
	// Keyed by contract and id together: scanNFTs reads the first column
	// as the key.
	rows, err := st.query(ctx, `SELECT n.contract || n.token_id, n.token_uri, n.status, n.metadata, n.updated
		FROM unnest($2::bytea[], $3::bytea[]) k(contract, token_id)
		JOIN nfts n ON n.chain_id=$1 AND n.contract=k.contract AND n.token_id=k.token_id`, chainID, contracts, ids)
	if err != nil {
		return nil, fmt.Errorf("evmindex: nfts: %w", err)
	}
	found, err := scanNFTs(rows)
	if err != nil {
		return nil, err
	}
	for i, n := range nfts {
		if f, ok := found[string(contracts[i])+string(ids[i])]; ok {
			n.TokenURI, n.Status, n.Metadata, n.Updated = f.TokenURI, f.Status, f.Metadata, f.Updated
			out[NFTKey{n.Contract, n.TokenID.String()}] = n
		}
	}
	return out, nil
}

// scanNFTs reads nfts rows (a key, URI, status, metadata, time) by key.
func scanNFTs(rows rowSet) (map[string]NFT, error) {
	defer rows.Close()
	found := map[string]NFT{}
	for rows.Next() {
		var id []byte
		var n NFT
		var meta string
		if err := rows.Scan(&id, &n.TokenURI, &n.Status, &meta, &n.Updated); err != nil {
			return nil, fmt.Errorf("evmindex: nfts: %w", err)
		}
		json.Unmarshal([]byte(meta), &n.Metadata)
		found[string(id)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: nfts: %w", err)
	}
	return found, nil
}

func (st *pgStore) NFTHolders(ctx context.Context, chainID uint64, contract common.Address) ([]Holder, uint64, error) {
	rows, err := st.query(ctx, `SELECT owner, COUNT(*) FROM (
			SELECT owner FROM nft_owners WHERE chain_id=$1 AND contract=$2
			UNION ALL SELECT owner FROM erc1155_balances WHERE chain_id=$1 AND contract=$2
		) o GROUP BY owner`, chainID, contract.Bytes())
	out, err := listRows(rows, err, "nft holders", scanNFTHolders())
	if err != nil {
		return nil, 0, err
	}
	sortHolders(out)
	var total uint64
	if err := st.pool.QueryRow(ctx, `SELECT COUNT(*) FROM collection_tokens WHERE chain_id=$1 AND contract=$2`, chainID, contract.Bytes()).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("evmindex: nft holders: %w", err)
	}
	return out, total, nil
}

func (st *pgStore) BalanceHolders(ctx context.Context, chainID uint64, contract common.Address, threshold *big.Int, start, end int64) ([]Holder, error) {
	rows, err := st.query(ctx, `SELECT t.from_addr, t.to_addr, t.value::text, b.timestamp FROM transfers t
		JOIN blocks b ON b.chain_id = t.chain_id AND b.number = t.block_number
		WHERE t.chain_id=$1 AND t.contract=$2 AND t.kind=$3 AND b.timestamp <= $4 ORDER BY t.seq`, chainID, contract.Bytes(), int16(ERC20), end)
	if err != nil {
		return nil, fmt.Errorf("evmindex: balance holders: %w", err)
	}
	return peakHolders(rows, threshold, start)
}

func (st *pgStore) ICMHourly(ctx context.Context, since, until int64) ([]ICMCount, error) {
	if until < since {
		return nil, nil
	}
	lo, hi := max(since, 0)/3600*3600, min(until/3600*3600+3600, 1<<31-1)
	rows, err := st.query(ctx, `SELECT ((ord >> 32) / 3600) * 3600 AS h, src_chain, dst_chain, COUNT(*) FROM icm_messages
		WHERE ord >= $1 AND ord < $2 GROUP BY h, src_chain, dst_chain ORDER BY h`, lo<<32, hi<<32)
	return listRows(rows, err, "icm counts", scanICMCounts())
}

func (st *pgStore) ICMChainTxs(ctx context.Context, chainID uint64, kind ICMEventKind) (uint64, error) {
	var n uint64
	if err := st.pool.QueryRow(ctx, `SELECT COUNT(DISTINCT tx_hash) FROM icm_events WHERE chain_id=$1 AND kind=$2`, chainID, int16(kind)).Scan(&n); err != nil {
		return 0, fmt.Errorf("evmindex: icm transactions: %w", err)
	}
	return n, nil
}

func (st *pgStore) ICMEvents(ctx context.Context, id common.Hash, limit int) ([]ICMRecord, error) {
	rows, err := st.query(ctx, `SELECT e.chain_id, e.block_number, e.tx_hash, e.messenger, e.kind, e.party, e.data, e.ts,
		e.src_chain, e.dst_chain, COALESCE(x.gas_used, 0)
		FROM icm_events e LEFT JOIN txs x ON x.chain_id = e.chain_id AND x.hash = e.tx_hash
		WHERE e.message_id = $1 ORDER BY e.ts, e.chain_id, e.block_number, e.log_index LIMIT $2`, id.Bytes(), limit)
	if err != nil {
		return nil, fmt.Errorf("evmindex: icm message: %w", err)
	}
	return scanICMRecords(rows)
}

// pgNumbered numbers the ? placeholders of q ($1, $2...): icmListing builds
// its query for either store.
func pgNumbered(q string) string {
	var sb strings.Builder
	n := 0
	for _, part := range strings.SplitAfter(q, "?") {
		if p, ok := strings.CutSuffix(part, "?"); ok {
			n++
			sb.WriteString(p + "$" + strconv.Itoa(n))
			continue
		}
		sb.WriteString(part)
	}
	return sb.String()
}

func (st *pgStore) ICMMessageIDs(ctx context.Context, q ICMQuery) ([]ICMHit, error) {
	query, args, ok := icmListing(q)
	if !ok {
		return nil, nil
	}
	rows, err := st.query(ctx, pgNumbered(query), args...)
	if err != nil {
		return nil, fmt.Errorf("evmindex: icm messages: %w", err)
	}
	return scanICMHits(rows)
}
