package evmindex

import (
	"context"
	"math/big"

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
		e.Message, e.Fee, err = unpackSend(e.Data)
	case ICMReceive:
		e.RewardRedeemer, e.Message, err = unpackReceive(e.Data)
	case ICMExecutionFailed:
		e.Message, err = unpackMessage(failedArgs, e.Data, 0)
	case ICMReceipt, ICMAddFee:
		e.Fee, err = unpackFee(e.Data)
	}
	return err
}

// ICMRecord is a stored messenger event of a message, with its
// transaction's gas (0 when the transaction is not stored).
type ICMRecord struct {
	ChainID, Block, Timestamp, GasUsed uint64
	TxHash                             common.Hash
	Messenger                          common.Address
	Kind                               ICMEventKind
	Party                              common.Address
	Data                               []byte
	Source, Destination                common.Hash
}

// ICMMessage returns the message with id, from the events of every indexed
// chain, or ErrNotFound when no indexed chain sent or received it.
func (ix *Index) ICMMessage(ctx context.Context, id common.Hash) (*ICMMessage, error) {
	records, err := ix.reader.ICMEvents(ctx, id, maxMessageEvents)
	if err != nil {
		return nil, err
	}
	m := &ICMMessage{ID: id}
	var fromReceive *ICMContent
	for _, r := range records {
		e := ICMEvent{Kind: r.Kind, Data: r.Data}
		if err := decodeStored(&e); err != nil {
			continue // stored only after it decoded; never met
		}
		t := ICMTx{ChainID: r.ChainID, Hash: r.TxHash, Block: r.Block, Timestamp: r.Timestamp, GasUsed: r.GasUsed, Kind: r.Kind}
		m.Txs = append(m.Txs, t)
		switch e.Kind {
		case ICMSend:
			m.Messenger, m.Source, m.Destination = r.Messenger, r.Source, r.Destination
			m.ICMContent, m.Fee, m.Sent = *e.Message, *e.Fee, &t
		case ICMReceive:
			m.Delivered, m.Deliverer, m.RewardRedeemer = &t, r.Party, e.RewardRedeemer
			if m.Sent == nil {
				m.Messenger, m.Source, m.Destination = r.Messenger, r.Source, r.Destination
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

// ICMHit is a message a listing selects, and its place in the listing
// (a page cursor).
type ICMHit struct {
	ID  common.Hash
	Ord int64
}

// ICMMessages returns a page of the messages q selects, newest first (by
// the time of their send, else of their delivery).
func (ix *Index) ICMMessages(ctx context.Context, q ICMQuery) (ICMPage, error) {
	hits, err := ix.reader.ICMMessageIDs(ctx, q)
	if err != nil {
		return ICMPage{}, err
	}
	var page ICMPage
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
		page.Next = hits[len(hits)-1].Ord
	}
	for _, h := range hits {
		m, err := ix.ICMMessage(ctx, h.ID)
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
