package evmindex

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// maxMessageEvents bounds the events read for one message: a sender can add
// to a message's fee any number of times.
const maxMessageEvents = 256

// ICMTx is a transaction that sent, delivered or otherwise touched a
// message.
type ICMTx struct {
	ChainID   uint64
	Hash      common.Hash
	Block     uint64
	Timestamp uint64
	GasUsed   uint64
	Kind      ICMEventKind
}

// ICMMessage is an ICM message as the index knows it from the messenger
// events of its chains: sent on its source chain, delivered (and executed,
// or not) on its destination chain, its receipt back on the source chain.
type ICMMessage struct {
	ID        common.Hash
	Messenger common.Address
	// Source and Destination are the blockchain ids of its ends. Source is
	// zero when the message was sent from an indexed chain whose blockchain
	// id is unknown (ChainOptions.BlockchainID).
	Source, Destination common.Hash
	ICMContent
	// Fee is the fee the sender offered, with what it added later; zero
	// while the send is not indexed.
	Fee ICMFee
	// Sent is the sending transaction; nil when the source chain is not
	// indexed. Delivered is the receiving transaction; nil until it is
	// indexed.
	Sent, Delivered *ICMTx
	// Deliverer and RewardRedeemer are the receive's.
	Deliverer, RewardRedeemer common.Address
	// Executed says the destination ran the message (MessageExecuted, on
	// delivery or a later retry); ExecutionFailed that its last attempt
	// failed (MessageExecutionFailed, with no MessageExecuted since).
	Executed, ExecutionFailed bool
	// ReceiptDelivered says the source chain received the delivery's
	// receipt (ReceiptReceived) and paid the relayer Reward.
	ReceiptDelivered bool
	Reward           *ICMFee
	// Txs are every transaction of the message's events, in order.
	Txs []ICMTx
}

// Pending reports whether no delivery of the message is indexed.
func (m *ICMMessage) Pending() bool { return m.Delivered == nil }

// decodeStored decodes a stored event's data by its kind.
func decodeStored(e *ICMEvent) error {
	var err error
	switch e.Kind {
	case ICMSend:
		e.Message, e.Fee, err = unpackSend(e.data)
	case ICMReceive:
		e.RewardRedeemer, e.Message, err = unpackReceive(e.data)
	case ICMExecutionFailed:
		e.Message, err = unpackMessage(failedArgs, e.data, 0)
	case ICMReceipt, ICMAddFee:
		e.Fee, err = unpackFee(e.data)
	}
	return err
}

// ICMMessage returns the message with id, from the events of every indexed
// chain, or ErrNotFound when no indexed chain sent or received it.
func (ix *Index) ICMMessage(ctx context.Context, id common.Hash) (*ICMMessage, error) {
	rows, err := ix.r.QueryContext(ctx, `SELECT e.chain_id, e.block_number, e.tx_hash, e.messenger, e.kind, e.chain, e.party, e.data, e.ts,
		e.src_chain, e.dst_chain, COALESCE(x.gas_used, 0)
		FROM icm_events e LEFT JOIN txs x ON x.chain_id = e.chain_id AND x.hash = e.tx_hash
		WHERE e.message_id = ? ORDER BY e.ts, e.chain_id, e.block_number, e.log_index LIMIT ?`, id.Bytes(), maxMessageEvents)
	if err != nil {
		return nil, fmt.Errorf("evmindex: icm message: %w", err)
	}
	defer rows.Close()
	m := &ICMMessage{ID: id}
	var fromReceive *ICMContent
	for rows.Next() {
		var t ICMTx
		var e ICMEvent
		var hash, messenger, chain, party, src, dst []byte
		if err := rows.Scan(&t.ChainID, &t.Block, &hash, &messenger, &e.Kind, &chain, &party, &e.data, &t.Timestamp, &src, &dst, &t.GasUsed); err != nil {
			return nil, fmt.Errorf("evmindex: icm message: %w", err)
		}
		if err := decodeStored(&e); err != nil {
			continue // stored only after it decoded; never met
		}
		t.Hash, t.Kind = common.BytesToHash(hash), e.Kind
		m.Txs = append(m.Txs, t)
		switch e.Kind {
		case ICMSend:
			m.Messenger, m.Source, m.Destination = common.BytesToAddress(messenger), common.BytesToHash(src), common.BytesToHash(dst)
			m.ICMContent, m.Fee, m.Sent = *e.Message, *e.Fee, &t
		case ICMReceive:
			m.Delivered, m.Deliverer, m.RewardRedeemer = &t, common.BytesToAddress(party), e.RewardRedeemer
			if m.Sent == nil {
				m.Messenger, m.Source, m.Destination = common.BytesToAddress(messenger), common.BytesToHash(src), common.BytesToHash(dst)
				fromReceive = e.Message
			}
		case ICMExecuted:
			m.Executed, m.ExecutionFailed = true, false
		case ICMExecutionFailed:
			if !m.Executed {
				m.ExecutionFailed = true
			}
		case ICMReceipt:
			m.ReceiptDelivered, m.Reward = true, e.Fee
		case ICMAddFee:
			m.Fee = *e.Fee
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evmindex: icm message: %w", err)
	}
	switch {
	case m.Sent != nil:
	case fromReceive != nil:
		m.ICMContent = *fromReceive
	default:
		return nil, ErrNotFound
	}
	if m.Fee.Amount == nil {
		m.Fee.Amount = new(big.Int)
	}
	return m, nil
}

// ICMQuery selects messages for ICMMessages. Every set field must match.
type ICMQuery struct {
	// Source and Destination are blockchain ids of the message's ends.
	Source, Destination *common.Hash
	// Chains, when not nil, keeps the messages with either end among them
	// (an empty list keeps none).
	Chains []common.Hash
	// From and To are the sender and the recipient; Party is either.
	From, To, Party *common.Address
	// Before is a page cursor (a message's Ord): only older messages.
	// Zero means from the newest.
	Before int64
	// Limit is the page size.
	Limit int
}

// ICMPage is a page of messages, newest first, and the cursor of the next
// page (zero when there is none).
type ICMPage struct {
	Messages []*ICMMessage
	Next     int64
}

// ICMMessages returns a page of the messages q selects, newest first (by
// the time of their send, else of their delivery).
func (ix *Index) ICMMessages(ctx context.Context, q ICMQuery) (ICMPage, error) {
	var conds []string
	var args []any
	eq := func(col string, v []byte) {
		conds = append(conds, col+"=?")
		args = append(args, v)
	}
	if q.Source != nil {
		eq("src_chain", q.Source.Bytes())
	}
	if q.Destination != nil {
		eq("dst_chain", q.Destination.Bytes())
	}
	if q.From != nil {
		eq("sender", q.From.Bytes())
	}
	if q.To != nil {
		eq("recipient", q.To.Bytes())
	}
	before := q.Before
	if before <= 0 {
		before = math.MaxInt64
	}
	conds = append(conds, "ord<?")
	args = append(args, before)
	// Alternatives (either end, either party) are branches of a union, each
	// reading one index in order.
	type alt struct {
		col string
		v   []byte
	}
	branches := [][]alt{nil}
	fork := func(alts []alt) {
		var out [][]alt
		for _, b := range branches {
			for _, a := range alts {
				out = append(out, append(append([]alt{}, b...), a))
			}
		}
		branches = out
	}
	if q.Chains != nil {
		if len(q.Chains) == 0 {
			return ICMPage{}, nil
		}
		var alts []alt
		for _, c := range q.Chains {
			alts = append(alts, alt{"src_chain", c.Bytes()}, alt{"dst_chain", c.Bytes()})
		}
		fork(alts)
	}
	if q.Party != nil {
		fork([]alt{{"sender", q.Party.Bytes()}, {"recipient", q.Party.Bytes()}})
	}
	limit := q.Limit + 1
	var sb strings.Builder
	var all []any
	for i, b := range branches {
		if i > 0 {
			sb.WriteString(" UNION ")
		}
		sb.WriteString("SELECT * FROM (SELECT message_id, ord FROM icm_messages WHERE ")
		sb.WriteString(strings.Join(conds, " AND "))
		all = append(all, args...)
		for _, a := range b {
			sb.WriteString(" AND " + a.col + "=?")
			all = append(all, a.v)
		}
		sb.WriteString(" ORDER BY ord DESC LIMIT ?)")
		all = append(all, limit)
	}
	sb.WriteString(" ORDER BY ord DESC LIMIT ?")
	all = append(all, limit)
	rows, err := ix.r.QueryContext(ctx, sb.String(), all...)
	if err != nil {
		return ICMPage{}, fmt.Errorf("evmindex: icm messages: %w", err)
	}
	type hit struct {
		id  common.Hash
		ord int64
	}
	var hits []hit
	for rows.Next() {
		var id []byte
		var h hit
		if err := rows.Scan(&id, &h.ord); err != nil {
			rows.Close()
			return ICMPage{}, fmt.Errorf("evmindex: icm messages: %w", err)
		}
		h.id = common.BytesToHash(id)
		hits = append(hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return ICMPage{}, fmt.Errorf("evmindex: icm messages: %w", err)
	}
	var page ICMPage
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
		page.Next = hits[len(hits)-1].ord
	}
	for _, h := range hits {
		m, err := ix.ICMMessage(ctx, h.id)
		if err != nil {
			return ICMPage{}, err
		}
		page.Messages = append(page.Messages, m)
	}
	return page, nil
}

// ICMCount is how many messages went from Source to Destination in the hour
// starting at Hour (unix seconds).
type ICMCount struct {
	Hour                int64
	Source, Destination common.Hash
	N                   uint64
}

// ICMHourly counts the messages of each source, destination and hour from
// the hour holding since through the one holding until (unix seconds), by
// the time of their send (else of their delivery). The rows are at most the
// hours times the pairs of chains that exchanged messages.
func (ix *Index) ICMHourly(ctx context.Context, since, until int64) ([]ICMCount, error) {
	if until < since {
		return nil, nil
	}
	lo, hi := max(since, 0)/3600*3600, min(until/3600*3600+3600, 1<<31-1)
	rows, err := ix.r.QueryContext(ctx, `SELECT ((ord >> 32) / 3600) * 3600 AS h, src_chain, dst_chain, COUNT(*) FROM icm_messages
		WHERE ord >= ? AND ord < ? GROUP BY h, src_chain, dst_chain ORDER BY h`, lo<<32, hi<<32)
	if err != nil {
		return nil, fmt.Errorf("evmindex: icm counts: %w", err)
	}
	defer rows.Close()
	var out []ICMCount
	for rows.Next() {
		var c ICMCount
		var src, dst []byte
		if err := rows.Scan(&c.Hour, &src, &dst, &c.N); err != nil {
			return nil, fmt.Errorf("evmindex: icm counts: %w", err)
		}
		c.Source, c.Destination = common.BytesToHash(src), common.BytesToHash(dst)
		out = append(out, c)
	}
	return out, rows.Err()
}

// ICMChainTxs counts, for the legacy getTeleporterMetricsByChain, the
// transactions of chainID that sent (kind ICMSend) or delivered (ICMReceive)
// a message.
func (ix *Index) ICMChainTxs(ctx context.Context, chainID uint64, kind ICMEventKind) (uint64, error) {
	var n uint64
	err := ix.r.QueryRowContext(ctx, `SELECT COUNT(DISTINCT tx_hash) FROM icm_events WHERE chain_id=? AND kind=?`, chainID, kind).Scan(&n)
	if err != nil && err != sql.ErrNoRows {
		return 0, fmt.Errorf("evmindex: icm transactions: %w", err)
	}
	return n, nil
}
