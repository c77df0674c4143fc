package evmindex

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// TeleporterMessenger is the address of the TeleporterMessenger contract
// (ICM) on every Avalanche chain that has it: deployed with the same keyless
// transaction everywhere, so the address is the same on each chain.
// ChainOptions.TeleporterAddresses replaces it for one chain.
var TeleporterMessenger = common.HexToAddress("0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf")

// Topics of the TeleporterMessenger events the index decodes (icm-contracts
// ITeleporterMessenger.sol), with the structs expanded as the ABI hashes them:
//
//	TeleporterMessage        = (uint256 messageNonce, address originSenderAddress, bytes32 destinationBlockchainID,
//	                            address destinationAddress, uint256 requiredGasLimit, address[] allowedRelayerAddresses,
//	                            TeleporterMessageReceipt[] receipts, bytes message)
//	TeleporterMessageReceipt = (uint256 receivedMessageNonce, address relayerRewardAddress)
//	TeleporterFeeInfo        = (address feeTokenAddress, uint256 amount)
var (
	// SendCrossChainMessage(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID,
	// TeleporterMessage message, TeleporterFeeInfo feeInfo): three topics.
	topicSendCrossChainMessage = crypto.Keccak256Hash([]byte(
		"SendCrossChainMessage(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes),(address,uint256))"))
	// ReceiveCrossChainMessage(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID,
	// address indexed deliverer, address rewardRedeemer, TeleporterMessage message): four topics.
	topicReceiveCrossChainMessage = crypto.Keccak256Hash([]byte(
		"ReceiveCrossChainMessage(bytes32,bytes32,address,address,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))"))
)

// TeleporterDirection says which end of a Teleporter message a transaction
// is.
type TeleporterDirection uint8

// Teleporter directions.
const (
	// TeleporterSource is a transaction that sent the message
	// (SendCrossChainMessage).
	TeleporterSource TeleporterDirection = 1
	// TeleporterDestination is a transaction that delivered the message
	// (ReceiveCrossChainMessage).
	TeleporterDestination TeleporterDirection = 2
)

// String returns the Data API's TransactionDirectionType:
// "SOURCE_TRANSACTION" or "DESTINATION_TRANSACTION".
func (d TeleporterDirection) String() string {
	switch d {
	case TeleporterSource:
		return "SOURCE_TRANSACTION"
	case TeleporterDestination:
		return "DESTINATION_TRANSACTION"
	}
	return "UNKNOWN"
}

// TeleporterEvent is a SendCrossChainMessage or ReceiveCrossChainMessage log
// of a transaction, emitted by one of the chain's TeleporterAddresses. Only
// the indexed topics are kept.
type TeleporterEvent struct {
	TxHash    common.Hash
	LogIndex  uint
	MessageID common.Hash
	Direction TeleporterDirection
	// OtherChain is the 32-byte Avalanche blockchain id at the other end:
	// the destination of a send, the source of a receive.
	OtherChain common.Hash
}

// messengerSet returns the addresses whose Teleporter logs count: addrs, or
// TeleporterMessenger when addrs is empty.
func messengerSet(addrs []common.Address) map[common.Address]bool {
	if len(addrs) == 0 {
		addrs = []common.Address{TeleporterMessenger}
	}
	m := make(map[common.Address]bool, len(addrs))
	for _, a := range addrs {
		m[a] = true
	}
	return m
}

// decodeTeleporter appends the Teleporter event of l, when l is one emitted
// by a messenger. A log with the right topic but the wrong number of topics
// is not one the contract emits and is skipped.
func decodeTeleporter(out []TeleporterEvent, messengers map[common.Address]bool, tx common.Hash, l *rpcLog) []TeleporterEvent {
	if len(l.Topics) == 0 || !messengers[l.Address] {
		return out
	}
	e := TeleporterEvent{TxHash: tx, LogIndex: uint(l.LogIndex)}
	switch {
	case l.Topics[0] == topicSendCrossChainMessage && len(l.Topics) == 3:
		e.Direction = TeleporterSource
	case l.Topics[0] == topicReceiveCrossChainMessage && len(l.Topics) == 4:
		e.Direction = TeleporterDestination
	default:
		return out
	}
	e.MessageID, e.OtherChain = l.Topics[1], l.Topics[2]
	return append(out, e)
}
