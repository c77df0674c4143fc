package evmdata

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The ICM routes (glacier.json's "Interchain Messaging": getIcmMessage,
// listIcmMessages, listIcmMessagesByAddress) and their legacy Teleporter
// predecessors answer from the messages the index assembled from the
// TeleporterMessenger events of every indexed chain. A message's status is
// "pending" until its delivery is indexed, then "delivered", or
// "delivered_source_not_indexed" when only its destination chain is indexed.

// icmMessage is glacier.json's PendingIcmMessage, DeliveredIcmMessage and
// DeliveredSourceNotIndexedIcmMessage (by status); the legacy Teleporter
// routes name the contract teleporterContractAddress instead of
// icmContractAddress.
type icmMessage struct {
	MessageID                 string          `json:"messageId"`
	ICMContractAddress        string          `json:"icmContractAddress,omitempty"`
	TeleporterContractAddress string          `json:"teleporterContractAddress,omitempty"`
	SourceBlockchainID        string          `json:"sourceBlockchainId"`
	DestinationBlockchainID   string          `json:"destinationBlockchainId"`
	SourceEvmChainID          string          `json:"sourceEvmChainId"`
	DestinationEvmChainID     string          `json:"destinationEvmChainId"`
	MessageNonce              string          `json:"messageNonce"`
	From                      string          `json:"from"`
	To                        string          `json:"to"`
	Data                      string          `json:"data,omitempty"`
	MessageExecuted           bool            `json:"messageExecuted"`
	Receipts                  []icmReceipt    `json:"receipts"`
	ReceiptDelivered          bool            `json:"receiptDelivered"`
	RewardDetails             icmReward       `json:"rewardDetails"`
	SourceTransaction         *icmSourceTx    `json:"sourceTransaction,omitempty"`
	DestinationTransaction    *icmDestination `json:"destinationTransaction,omitempty"`
	Status                    string          `json:"status"`
}

type icmReceipt struct {
	ReceivedMessageNonce string `json:"receivedMessageNonce"`
	RelayerRewardAddress string `json:"relayerRewardAddress"`
}

// icmReward is IcmRewardDetails: the fee token and amount offered.
type icmReward struct {
	Address  string `json:"address"`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
	ErcType  string `json:"ercType"`
	Value    string `json:"value"`
}

type icmSourceTx struct {
	TxHash    string `json:"txHash"`
	Timestamp uint64 `json:"timestamp"`
	GasSpent  string `json:"gasSpent"`
}

type icmDestination struct {
	icmSourceTx
	RewardRedeemer   string `json:"rewardRedeemer"`
	DelivererAddress string `json:"delivererAddress"`
}

type icmList struct {
	Messages      []icmMessage `json:"messages"`
	NextPageToken string       `json:"nextPageToken,omitempty"`
}

// icmHandlers returns the ICM routes' handlers, the legacy ones included.
func (s *server) icmHandlers() map[string]func(*req) (any, error) {
	return map[string]func(*req) (any, error){
		"getIcmMessage":                   s.getIcmMessage(false),
		"listIcmMessages":                 s.listIcmMessages(false),
		"listIcmMessagesByAddress":        s.listIcmMessagesByAddress(false),
		"getTeleporterMessage":            s.getIcmMessage(true),
		"listTeleporterMessages":          s.listIcmMessages(true),
		"listTeleporterMessagesByAddress": s.listIcmMessagesByAddress(true),
	}
}

func (s *server) getIcmMessage(teleporter bool) func(*req) (any, error) {
	return func(r *req) (any, error) {
		raw := r.Get("messageId")
		b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(raw, "0x"), "0X"))
		if err != nil || len(b) != common.HashLength {
			return nil, apireq.BadRequest("messageId must be a 32-byte hex message id")
		}
		m, err := s.ix.ICMMessage(r.Context(), common.BytesToHash(b))
		if err != nil {
			if err == evmindex.ErrNotFound {
				return nil, apireq.NotFound("ICM message " + raw + " not found")
			}
			return nil, err
		}
		return s.icmJSON(r.Context(), m, teleporter)
	}
}

func (s *server) listIcmMessages(teleporter bool) func(*req) (any, error) {
	return func(r *req) (any, error) {
		var q evmindex.ICMQuery
		var err error
		if q.Source, err = s.icmChainParam(r, "sourceBlockchainId"); err != nil {
			return nil, err
		}
		if q.Destination, err = s.icmChainParam(r, "destinationBlockchainId"); err != nil {
			return nil, err
		}
		either, err := s.icmChainParam(r, "blockchainId")
		if err != nil {
			return nil, err
		}
		for name, dst := range map[string]**common.Address{"from": &q.From, "to": &q.To} {
			if raw := r.Get(name); raw != "" {
				a, err := address(name, raw)
				if err != nil {
					return nil, err
				}
				*dst = &a
			}
		}
		q.Chains = s.icmNetwork(r.Get("network"))
		if either != nil {
			if q.Chains != nil && !containsHash(q.Chains, *either) {
				q.Chains = []common.Hash{}
			} else {
				q.Chains = []common.Hash{*either}
			}
		}
		return s.icmPage(r, q, teleporter, "sourceBlockchainId="+r.Get("sourceBlockchainId"), "destinationBlockchainId="+r.Get("destinationBlockchainId"),
			"blockchainId="+r.Get("blockchainId"), "from="+r.Get("from"), "to="+r.Get("to"), "network="+r.Get("network"))
	}
}

func (s *server) listIcmMessagesByAddress(teleporter bool) func(*req) (any, error) {
	return func(r *req) (any, error) {
		a, err := address("address", r.Get("address"))
		if err != nil {
			return nil, err
		}
		q := evmindex.ICMQuery{Party: &a, Chains: s.icmNetwork(r.Get("network"))}
		return s.icmPage(r, q, teleporter, "network="+r.Get("network"))
	}
}

// icmPage answers one page of q, continuing from the request's pageToken.
func (s *server) icmPage(r *req, q evmindex.ICMQuery, teleporter bool, filters ...string) (any, error) {
	sc := scope(r, filters...)
	c, err := s.cursor(r, sc)
	if err != nil {
		return nil, err
	}
	q.Before = int64(c)
	if q.Limit, err = pageSize(r, 10); err != nil {
		return nil, err
	}
	page, err := s.ix.ICMMessages(r.Context(), q)
	if err != nil {
		return nil, err
	}
	out := icmList{Messages: []icmMessage{}}
	for _, m := range page.Messages {
		j, err := s.icmJSON(r.Context(), m, teleporter)
		if err != nil {
			return nil, err
		}
		out.Messages = append(out.Messages, j)
	}
	if page.Next > 0 {
		out.NextPageToken = s.token(sc, uint64(page.Next))
	}
	return out, nil
}

// icmChainParam reads a chain filter: a base58 blockchain id, or the EVM
// chain id (or alias) of an indexed chain or of one of Options.KnownChains.
// Another EVM chain id names no chain a message here went to or came from:
// a zero id, which matches nothing.
func (s *server) icmChainParam(r *req, name string) (*common.Hash, error) {
	raw := r.Get(name)
	if raw == "" {
		return nil, nil
	}
	if id, ok := s.blockchainOf(raw); ok {
		return &id, nil
	}
	if n, err := strconv.ParseUint(raw, 10, 64); err == nil {
		for cb, evmID := range s.known {
			if evmID == n {
				if b, err := avax.CB58Decode(cb); err == nil && len(b) == common.HashLength {
					id := common.BytesToHash(b)
					return &id, nil
				}
			}
		}
		return &common.Hash{}, nil
	}
	b, err := avax.CB58Decode(raw)
	if err != nil || len(b) != common.HashLength {
		return nil, apireq.BadRequest(name + " must be a base58 blockchain id or an EVM chain id")
	}
	id := common.BytesToHash(b)
	return &id, nil
}

// blockchainOf returns the blockchain id of the indexed chain raw names by
// its EVM chain id or blockchain id, C-Chain aliases included.
func (s *server) blockchainOf(raw string) (common.Hash, bool) {
	for i := range s.chains {
		c := &s.chains[i]
		if (raw == strconv.FormatUint(c.ChainID, 10) || raw == c.PlatformChainID) && s.ix.Has(c.ChainID) {
			return s.ownBlockchainID(c.ChainID)
		}
	}
	if c := s.alias(raw); c != nil {
		return s.ownBlockchainID(c.ChainID)
	}
	return common.Hash{}, false
}

// ownBlockchainID is the blockchain id of indexed chain id, under its own
// ids (not an alias's).
func (s *server) ownBlockchainID(id uint64) (common.Hash, bool) {
	for i := range s.chains {
		if c := &s.chains[i]; c.ChainID == id && c.PlatformChainID != "" {
			if b, err := avax.CB58Decode(c.PlatformChainID); err == nil && len(b) == common.HashLength {
				return common.BytesToHash(b), true
			}
		}
	}
	return common.Hash{}, false
}

// icmNetwork returns the blockchain ids of the chains answering for
// network (networkChains), or nil without one.
func (s *server) icmNetwork(network string) []common.Hash {
	if network == "" {
		return nil
	}
	out := []common.Hash{}
	for _, c := range s.networkChains(network) {
		if id, ok := s.ownBlockchainID(c.ChainID); ok {
			out = append(out, id)
		}
	}
	return out
}

func containsHash(hs []common.Hash, h common.Hash) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// evmChainOf returns the EVM chain id of blockchain id, when an indexed
// chain or one of Options.KnownChains has it; else "".
func (s *server) evmChainOf(id common.Hash, indexed uint64) string {
	if indexed != 0 {
		return strconv.FormatUint(indexed, 10)
	}
	if id == (common.Hash{}) {
		return ""
	}
	cb := avax.CB58Encode(id.Bytes())
	for i := range s.chains {
		if s.chains[i].PlatformChainID == cb {
			return strconv.FormatUint(s.chains[i].ChainID, 10)
		}
	}
	if n, ok := s.known[cb]; ok {
		return strconv.FormatUint(n, 10)
	}
	return ""
}

func blockchainString(id common.Hash) string {
	if id == (common.Hash{}) {
		return ""
	}
	return avax.CB58Encode(id.Bytes())
}

// icmJSON describes m in glacier.json's shape.
func (s *server) icmJSON(ctx context.Context, m *evmindex.ICMMessage, teleporter bool) (icmMessage, error) {
	var srcChain, dstChain uint64
	if m.Sent != nil {
		srcChain = m.Sent.ChainID
	}
	if m.Delivered != nil {
		dstChain = m.Delivered.ChainID
	}
	j := icmMessage{
		MessageID:          hexutil.Encode(m.ID[:]),
		SourceBlockchainID: blockchainString(m.Source), DestinationBlockchainID: blockchainString(m.Destination),
		SourceEvmChainID: s.evmChainOf(m.Source, srcChain), DestinationEvmChainID: s.evmChainOf(m.Destination, dstChain),
		MessageNonce: m.Nonce.String(), From: checksum(m.From), To: checksum(m.To),
		MessageExecuted: m.Executed, Receipts: []icmReceipt{}, ReceiptDelivered: m.ReceiptDelivered,
	}
	if len(m.Data) > 0 {
		j.Data = hexutil.Encode(m.Data)
	}
	if teleporter {
		j.TeleporterContractAddress = checksum(m.Messenger)
	} else {
		j.ICMContractAddress = checksum(m.Messenger)
	}
	for _, rc := range m.Receipts {
		j.Receipts = append(j.Receipts, icmReceipt{ReceivedMessageNonce: rc.ReceivedMessageNonce.String(), RelayerRewardAddress: checksum(rc.RelayerRewardAddress)})
	}
	j.RewardDetails = icmReward{Address: checksum(m.Fee.Token), ErcType: "ERC-20", Value: m.Fee.Amount.String()}
	if m.Fee.Token != (common.Address{}) && m.Sent != nil {
		toks, err := s.ix.Tokens(ctx, m.Sent.ChainID, []common.Address{m.Fee.Token})
		if err != nil {
			return icmMessage{}, fmt.Errorf("fee token: %w", err)
		}
		if t, ok := toks[m.Fee.Token]; ok {
			j.RewardDetails.Name, j.RewardDetails.Symbol, j.RewardDetails.Decimals = t.Name, t.Symbol, int(t.Decimals)
		}
	}
	if m.Sent != nil {
		j.SourceTransaction = &icmSourceTx{TxHash: m.Sent.Hash.Hex(), Timestamp: m.Sent.Timestamp, GasSpent: u64(m.Sent.GasUsed)}
	}
	switch {
	case m.Delivered == nil:
		j.Status = "pending"
	default:
		j.DestinationTransaction = &icmDestination{
			icmSourceTx:    icmSourceTx{TxHash: m.Delivered.Hash.Hex(), Timestamp: m.Delivered.Timestamp, GasSpent: u64(m.Delivered.GasUsed)},
			RewardRedeemer: checksum(m.RewardRedeemer), DelivererAddress: checksum(m.Deliverer),
		}
		j.Status = "delivered"
		if m.Sent == nil {
			j.Status = "delivered_source_not_indexed"
		}
	}
	return j, nil
}
