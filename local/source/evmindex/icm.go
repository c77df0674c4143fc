package evmindex

import (
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ICMEventKind names a TeleporterMessenger event the index keeps
// (icm_events.kind).
type ICMEventKind uint8

// The TeleporterMessenger's events (icm-contracts ITeleporterMessenger.sol).
const (
	// ICMSend is SendCrossChainMessage: the message left its source chain.
	ICMSend ICMEventKind = 1
	// ICMReceive is ReceiveCrossChainMessage: the message was delivered on
	// its destination chain.
	ICMReceive ICMEventKind = 2
	// ICMExecuted is MessageExecuted: the destination ran the message.
	ICMExecuted ICMEventKind = 3
	// ICMExecutionFailed is MessageExecutionFailed: the destination's call
	// failed; it may be retried (retryMessageExecution), which emits
	// ICMExecuted when it succeeds.
	ICMExecutionFailed ICMEventKind = 4
	// ICMReceipt is ReceiptReceived: the source chain learned of the
	// delivery and paid the relayer's reward.
	ICMReceipt ICMEventKind = 5
	// ICMAddFee is AddFeeAmount: the sender raised the fee; the event
	// carries the new total.
	ICMAddFee ICMEventKind = 6
	// ICMRewardsRedeemed is RelayerRewardsRedeemed: a relayer withdrew its
	// rewards. It belongs to no message.
	ICMRewardsRedeemed ICMEventKind = 7
	// ICMBlockchainID is BlockchainIDInitialized: the messenger learned its
	// chain's Avalanche blockchain id (the sources of its messages).
	ICMBlockchainID ICMEventKind = 8
)

// The events' topics, with the structs expanded as the ABI hashes them:
//
//	TeleporterMessage        = (uint256 messageNonce, address originSenderAddress, bytes32 destinationBlockchainID,
//	                            address destinationAddress, uint256 requiredGasLimit, address[] allowedRelayerAddresses,
//	                            TeleporterMessageReceipt[] receipts, bytes message)
//	TeleporterMessageReceipt = (uint256 receivedMessageNonce, address relayerRewardAddress)
//	TeleporterFeeInfo        = (address feeTokenAddress, uint256 amount)
var (
	// MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID).
	topicMessageExecuted = crypto.Keccak256Hash([]byte("MessageExecuted(bytes32,bytes32)"))
	// MessageExecutionFailed(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, TeleporterMessage message).
	topicMessageExecutionFailed = crypto.Keccak256Hash([]byte(
		"MessageExecutionFailed(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))"))
	// ReceiptReceived(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID,
	// address indexed relayerRewardAddress, TeleporterFeeInfo feeInfo).
	topicReceiptReceived = crypto.Keccak256Hash([]byte("ReceiptReceived(bytes32,bytes32,address,(address,uint256))"))
	// AddFeeAmount(bytes32 indexed messageID, TeleporterFeeInfo updatedFeeInfo).
	topicAddFeeAmount = crypto.Keccak256Hash([]byte("AddFeeAmount(bytes32,(address,uint256))"))
	// RelayerRewardsRedeemed(address indexed redeemer, address indexed asset, uint256 amount).
	topicRelayerRewardsRedeemed = crypto.Keccak256Hash([]byte("RelayerRewardsRedeemed(address,address,uint256)"))
	// BlockchainIDInitialized(bytes32 indexed blockchainID).
	topicBlockchainIDInitialized = crypto.Keccak256Hash([]byte("BlockchainIDInitialized(bytes32)"))
)

// ICMReceiptInfo is a TeleporterMessageReceipt: a message received from
// the other chain, acknowledged by a later message back to it.
type ICMReceiptInfo struct {
	ReceivedMessageNonce *big.Int
	RelayerRewardAddress common.Address
}

// ICMContent is a TeleporterMessage as its events carry it.
type ICMContent struct {
	Nonce            *big.Int
	From             common.Address // originSenderAddress
	Destination      common.Hash    // destinationBlockchainID
	To               common.Address // destinationAddress
	RequiredGasLimit *big.Int
	AllowedRelayers  []common.Address
	Receipts         []ICMReceiptInfo
	Data             []byte
}

// ICMFee is a TeleporterFeeInfo.
type ICMFee struct {
	Token  common.Address
	Amount *big.Int
}

// The ABI shapes of the events' data, for abi.Arguments.Unpack. Field names
// are the components' names, as abi names the struct fields it decodes.
type (
	abiReceipt struct {
		ReceivedMessageNonce *big.Int
		RelayerRewardAddress common.Address
	}
	abiMessage struct {
		MessageNonce            *big.Int
		OriginSenderAddress     common.Address
		DestinationBlockchainID [32]byte
		DestinationAddress      common.Address
		RequiredGasLimit        *big.Int
		AllowedRelayerAddresses []common.Address
		Receipts                []abiReceipt
		Message                 []byte
	}
	abiFee struct {
		FeeTokenAddress common.Address
		Amount          *big.Int
	}
)

var (
	icmMessageType = mustType("tuple", []abi.ArgumentMarshaling{
		{Name: "messageNonce", Type: "uint256"}, {Name: "originSenderAddress", Type: "address"},
		{Name: "destinationBlockchainID", Type: "bytes32"}, {Name: "destinationAddress", Type: "address"},
		{Name: "requiredGasLimit", Type: "uint256"}, {Name: "allowedRelayerAddresses", Type: "address[]"},
		{Name: "receipts", Type: "tuple[]", Components: []abi.ArgumentMarshaling{
			{Name: "receivedMessageNonce", Type: "uint256"}, {Name: "relayerRewardAddress", Type: "address"}}},
		{Name: "message", Type: "bytes"},
	})
	icmFeeType = mustType("tuple", []abi.ArgumentMarshaling{{Name: "feeTokenAddress", Type: "address"}, {Name: "amount", Type: "uint256"}})
	// The non-indexed arguments of each event with data.
	sendArgs    = abi.Arguments{{Name: "message", Type: icmMessageType}, {Name: "feeInfo", Type: icmFeeType}}
	receiveArgs = abi.Arguments{{Name: "rewardRedeemer", Type: mustType("address", nil)}, {Name: "message", Type: icmMessageType}}
	failedArgs  = abi.Arguments{{Name: "message", Type: icmMessageType}}
	feeArgs     = abi.Arguments{{Name: "feeInfo", Type: icmFeeType}}
	amountArgs  = abi.Arguments{{Name: "amount", Type: mustType("uint256", nil)}}
)

func mustType(t string, components []abi.ArgumentMarshaling) abi.Type {
	ty, err := abi.NewType(t, "", components)
	if err != nil {
		panic(err)
	}
	return ty
}

// ICMEvent is one TeleporterMessenger event of a transaction, decoded.
type ICMEvent struct {
	TxHash    common.Hash
	LogIndex  uint
	Messenger common.Address
	Kind      ICMEventKind
	// MessageID is the message the event is about; zero for
	// ICMRewardsRedeemed and ICMBlockchainID.
	MessageID common.Hash
	// Chain is the blockchain id the event names: the destination of a
	// send or receipt, the source of a receive, execution or failure, the
	// messenger's own of ICMBlockchainID.
	Chain common.Hash
	// Party is the deliverer of a receive, the relayer reward address of a
	// receipt, the redeemer of a redemption.
	Party common.Address
	// RewardRedeemer is a receive's rewardRedeemer.
	RewardRedeemer common.Address
	// Message is the message of a send, receive or failure.
	Message *ICMContent
	// Fee is the fee of a send, the new total of an added fee, the reward
	// of a receipt; for a redemption, the asset (Token) and amount.
	Fee *ICMFee
	// Data is the log's data, as emitted and stored.
	Data []byte
}

// decodeICM appends the TeleporterMessenger event of l, when l is one
// emitted by a messenger with the topics and data the contract gives it;
// anything else is skipped.
func decodeICM(out []ICMEvent, messengers map[common.Address]bool, tx common.Hash, l *rpcLog) []ICMEvent {
	if len(l.Topics) == 0 || !messengers[l.Address] {
		return out
	}
	e, ok := parseICM(l.Topics, l.Data)
	if !ok {
		return out
	}
	e.TxHash, e.LogIndex, e.Messenger = tx, uint(l.LogIndex), l.Address
	return append(out, e)
}

// parseICM decodes an event from its topics and data; ok is false for a
// log that is not one of the messenger's events or is malformed.
func parseICM(topics []common.Hash, data []byte) (e ICMEvent, ok bool) {
	e.Data = data
	var err error
	switch topics[0] {
	case topicSendCrossChainMessage:
		if len(topics) != 3 {
			return e, false
		}
		e.Kind, e.MessageID, e.Chain = ICMSend, topics[1], topics[2]
		e.Message, e.Fee, err = unpackSend(data)
	case topicReceiveCrossChainMessage:
		if len(topics) != 4 {
			return e, false
		}
		e.Kind, e.MessageID, e.Chain, e.Party = ICMReceive, topics[1], topics[2], addrTopic(topics[3])
		e.RewardRedeemer, e.Message, err = unpackReceive(data)
	case topicMessageExecuted:
		if len(topics) != 3 || len(data) != 0 {
			return e, false
		}
		e.Kind, e.MessageID, e.Chain = ICMExecuted, topics[1], topics[2]
	case topicMessageExecutionFailed:
		if len(topics) != 3 {
			return e, false
		}
		e.Kind, e.MessageID, e.Chain = ICMExecutionFailed, topics[1], topics[2]
		e.Message, err = unpackMessage(failedArgs, data, 0)
	case topicReceiptReceived:
		if len(topics) != 4 {
			return e, false
		}
		e.Kind, e.MessageID, e.Chain, e.Party = ICMReceipt, topics[1], topics[2], addrTopic(topics[3])
		e.Fee, err = unpackFee(data)
	case topicAddFeeAmount:
		if len(topics) != 2 {
			return e, false
		}
		e.Kind, e.MessageID = ICMAddFee, topics[1]
		e.Fee, err = unpackFee(data)
	case topicRelayerRewardsRedeemed:
		if len(topics) != 3 {
			return e, false
		}
		e.Kind, e.Party = ICMRewardsRedeemed, addrTopic(topics[1])
		var vals []any
		if vals, err = amountArgs.Unpack(data); err == nil {
			e.Fee = &ICMFee{Token: addrTopic(topics[2]), Amount: vals[0].(*big.Int)}
		}
	case topicBlockchainIDInitialized:
		if len(topics) != 2 || len(data) != 0 {
			return e, false
		}
		e.Kind, e.Chain = ICMBlockchainID, topics[1]
	default:
		return e, false
	}
	return e, err == nil
}

func unpackSend(data []byte) (*ICMContent, *ICMFee, error) {
	vals, err := sendArgs.Unpack(data)
	if err != nil {
		return nil, nil, err
	}
	m := toContent(vals[0])
	f := *abi.ConvertType(vals[1], new(abiFee)).(*abiFee)
	return m, &ICMFee{Token: f.FeeTokenAddress, Amount: f.Amount}, nil
}

func unpackReceive(data []byte) (common.Address, *ICMContent, error) {
	vals, err := receiveArgs.Unpack(data)
	if err != nil {
		return common.Address{}, nil, err
	}
	return vals[0].(common.Address), toContent(vals[1]), nil
}

func unpackMessage(args abi.Arguments, data []byte, i int) (*ICMContent, error) {
	vals, err := args.Unpack(data)
	if err != nil {
		return nil, err
	}
	return toContent(vals[i]), nil
}

func unpackFee(data []byte) (*ICMFee, error) {
	vals, err := feeArgs.Unpack(data)
	if err != nil {
		return nil, err
	}
	f := *abi.ConvertType(vals[0], new(abiFee)).(*abiFee)
	return &ICMFee{Token: f.FeeTokenAddress, Amount: f.Amount}, nil
}

// toContent converts the abi package's decoded TeleporterMessage.
func toContent(v any) *ICMContent {
	m := *abi.ConvertType(v, new(abiMessage)).(*abiMessage)
	c := &ICMContent{Nonce: m.MessageNonce, From: m.OriginSenderAddress, Destination: m.DestinationBlockchainID,
		To: m.DestinationAddress, RequiredGasLimit: m.RequiredGasLimit, AllowedRelayers: m.AllowedRelayerAddresses, Data: m.Message}
	for _, r := range m.Receipts {
		c.Receipts = append(c.Receipts, ICMReceiptInfo(r))
	}
	return c
}
