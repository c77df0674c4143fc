package evmindex

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Event signatures of the token standards.
var (
	topicTransfer       = common.HexToHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef") // Transfer(address,address,uint256)
	topicTransferSingle = common.HexToHash("0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62") // TransferSingle(address,address,address,uint256,uint256)
	topicTransferBatch  = common.HexToHash("0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb") // TransferBatch(address,address,address,uint256[],uint256[])
)

// maxBatchItems bounds the ids of one TransferBatch log kept by the index
// (batchIndex has 10 bits in seq).
const maxBatchItems = 1 << 10

// decoded is a Block plus what the store keeps beyond the hook's view.
type decoded struct {
	Block
	txs       []rpcTx // parallel to Block.Txs
	feesSpent *big.Int
	internals []Frame
	// traced says the block's internal transactions are known: it was
	// indexed with call traces (an empty block is traced without a call).
	// untraced says why a traced chain's block was not (fetched.untraced).
	traced   bool
	untraced string
	teleport []TeleporterEvent
	icm      []ICMEvent
}

// bigOf copies h; absent (a frame without a value, such as a STATICCALL's)
// is zero.
func bigOf(h *hexutil.Big) *big.Int {
	if h == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(h.ToInt())
}

// decode turns a fetched block into the hook's Block and the store's rows.
// messengers are the addresses whose Teleporter events are kept.
func decode(chainID uint64, f *fetched, messengers map[common.Address]bool) *decoded {
	b := &f.block
	d := &decoded{Block: Block{
		ChainID: chainID, Number: uint64(b.Number), Hash: b.Hash, ParentHash: b.ParentHash,
		Timestamp: uint64(b.Timestamp), GasUsed: uint64(b.GasUsed), GasLimit: uint64(b.GasLimit),
	}, txs: b.Transactions, feesSpent: new(big.Int), untraced: f.untraced}
	if b.BaseFee != nil {
		d.BaseFee = bigOf(b.BaseFee)
	}
	d.Txs = make([]Tx, len(b.Transactions))
	for i := range b.Transactions {
		t := &b.Transactions[i]
		r := &f.receipts[i]
		price := r.EffectiveGasPrice
		if price == nil {
			price = t.GasPrice
		}
		p := bigOf(price)
		fee := new(big.Int).Mul(p, new(big.Int).SetUint64(uint64(r.GasUsed)))
		d.feesSpent.Add(d.feesSpent, fee)
		d.Txs[i] = Tx{
			Hash: t.Hash, Index: uint(t.TransactionIndex), Type: uint8(t.Type), From: t.From, To: t.To,
			Value: bigOf(t.Value), Nonce: uint64(t.Nonce), GasLimit: uint64(t.Gas), GasUsed: uint64(r.GasUsed),
			EffectiveGasPrice: p, Fee: fee, Status: uint64(r.Status),
		}
		for _, l := range r.Logs {
			if !l.Removed {
				d.Transfers = decodeLog(d.Transfers, t.Hash, &l)
				d.teleport = decodeTeleporter(d.teleport, messengers, t.Hash, &l)
				d.icm = decodeICM(d.icm, messengers, t.Hash, &l)
			}
		}
	}
	if f.traces != nil {
		d.traced = true
		for i, tr := range f.traces {
			if tr.Result == nil {
				continue
			}
			idx := 0
			walkFrames(tr.Result, false, func(fr *callFrame, reverted bool) {
				d.internals = append(d.internals, Frame{TxHash: b.Transactions[i].Hash, Idx: idx, InternalTx: InternalTx{
					Type: fr.Type, From: fr.From, To: fr.To, Value: bigOf(fr.Value), Gas: uint64(fr.Gas), GasUsed: uint64(fr.GasUsed), Reverted: reverted,
				}})
				idx++
				if (fr.Type == "CREATE" || fr.Type == "CREATE2") && !reverted && fr.To != (common.Address{}) {
					d.Creations = append(d.Creations, Creation{TxHash: b.Transactions[i].Hash, Deployer: fr.From, Address: fr.To, Kind: CreateKind(fr.Type)})
				}
			})
		}
	} else {
		for i := range b.Transactions {
			r := &f.receipts[i]
			if r.ContractAddress != nil && uint64(r.Status) == 1 && b.Transactions[i].To == nil {
				d.Creations = append(d.Creations, Creation{TxHash: r.TransactionHash, Deployer: b.Transactions[i].From, Address: *r.ContractAddress, Kind: CREATE})
			}
		}
	}
	return d
}

// walkFrames visits fr and its calls depth first; a frame is reverted when
// it or an ancestor failed.
func walkFrames(fr *callFrame, reverted bool, visit func(*callFrame, bool)) {
	reverted = reverted || fr.Error != ""
	visit(fr, reverted)
	for i := range fr.Calls {
		walkFrames(&fr.Calls[i], reverted, visit)
	}
}

func addrTopic(h common.Hash) common.Address { return common.BytesToAddress(h[12:]) }

// decodeLog appends the transfers of l. ERC-20 and ERC-721 share the Transfer
// event; ERC-721 indexes the token id (four topics), ERC-20 does not (three).
func decodeLog(out []Transfer, tx common.Hash, l *rpcLog) []Transfer {
	if len(l.Topics) == 0 {
		return out
	}
	t := Transfer{TxHash: tx, LogIndex: uint(l.LogIndex), Contract: l.Address}
	switch l.Topics[0] {
	case topicTransfer:
		switch {
		case len(l.Topics) == 3 && len(l.Data) == 32:
			t.Kind, t.From, t.To = ERC20, addrTopic(l.Topics[1]), addrTopic(l.Topics[2])
			t.Value = new(big.Int).SetBytes(l.Data)
		case len(l.Topics) == 4 && len(l.Data) == 0:
			t.Kind, t.From, t.To = ERC721, addrTopic(l.Topics[1]), addrTopic(l.Topics[2])
			t.TokenID, t.Value = new(big.Int).SetBytes(l.Topics[3][:]), big.NewInt(1)
		default:
			return out
		}
		return append(out, t)
	case topicTransferSingle:
		if len(l.Topics) != 4 || len(l.Data) != 64 {
			return out
		}
		t.Kind, t.From, t.To = ERC1155, addrTopic(l.Topics[2]), addrTopic(l.Topics[3])
		t.TokenID, t.Value = new(big.Int).SetBytes(l.Data[:32]), new(big.Int).SetBytes(l.Data[32:])
		return append(out, t)
	case topicTransferBatch:
		if len(l.Topics) != 4 {
			return out
		}
		ids, ok1 := uintArray(l.Data, 0)
		vals, ok2 := uintArray(l.Data, 32)
		if !ok1 || !ok2 || len(ids) != len(vals) {
			return out
		}
		t.Kind, t.From, t.To = ERC1155, addrTopic(l.Topics[2]), addrTopic(l.Topics[3])
		for i := range min(len(ids), maxBatchItems) {
			u := t
			u.BatchIndex, u.TokenID, u.Value = uint(i), ids[i], vals[i]
			out = append(out, u)
		}
	}
	return out
}

// uintArray decodes the ABI uint256[] whose offset is the word at head.
func uintArray(data []byte, head int) ([]*big.Int, bool) {
	if len(data) < head+32 {
		return nil, false
	}
	off := new(big.Int).SetBytes(data[head : head+32])
	if !off.IsUint64() || off.Uint64() > uint64(len(data))-32 {
		return nil, false
	}
	o := int(off.Uint64())
	n := new(big.Int).SetBytes(data[o : o+32])
	if !n.IsUint64() || n.Uint64() > uint64(len(data)-o-32)/32 {
		return nil, false
	}
	out := make([]*big.Int, n.Uint64())
	for i := range out {
		s := o + 32 + 32*i
		out[i] = new(big.Int).SetBytes(data[s : s+32])
	}
	return out, true
}
