package evmdata

// JSON shapes of glacier.json's components. Optional fields carry omitempty:
// the real service leaves them out, and the official SDK rejects a null
// optional field. Prices are unknown offline and always omitted.

type richAddress struct {
	Name     string `json:"name,omitempty"`
	Symbol   string `json:"symbol,omitempty"`
	Decimals *int   `json:"decimals,omitempty"`
	LogoURI  string `json:"logoUri,omitempty"`
	Address  string `json:"address"`
}

type networkToken struct {
	Name        string `json:"name"`
	Symbol      string `json:"symbol"`
	Decimals    int    `json:"decimals"`
	LogoURI     string `json:"logoUri,omitempty"`
	Description string `json:"description,omitempty"`
}

type nativeTokenBalance struct {
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
	LogoURI  string `json:"logoUri,omitempty"`
	ChainID  string `json:"chainId"`
	Balance  string `json:"balance"`
}

type evmBlock struct {
	ChainID                string `json:"chainId"`
	BlockNumber            string `json:"blockNumber"`
	BlockTimestamp         uint64 `json:"blockTimestamp"`
	BlockHash              string `json:"blockHash"`
	TxCount                int    `json:"txCount"`
	BaseFee                string `json:"baseFee"`
	GasUsed                string `json:"gasUsed"`
	GasLimit               string `json:"gasLimit"`
	GasCost                string `json:"gasCost"`
	ParentHash             string `json:"parentHash"`
	FeesSpent              string `json:"feesSpent"`
	CumulativeTransactions string `json:"cumulativeTransactions"`
}

// erc20Token is Erc20Token and, with TokenReputation, Erc20TokenV2.
type erc20Token struct {
	Address  string `json:"address"`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
	LogoURI  string `json:"logoUri,omitempty"`
	ErcType  string `json:"ercType"`
	// TokenReputation is "Malicious" for a spam token (evmindex.Token.Spam),
	// else "Benign".
	TokenReputation string `json:"tokenReputation,omitempty"`
}

// nftMetadata covers Erc721TokenMetadata and Erc1155TokenMetadata.
type nftMetadata struct {
	IndexStatus                  string `json:"indexStatus"`
	MetadataLastUpdatedTimestamp int64  `json:"metadataLastUpdatedTimestamp,omitempty"`
	Name                         string `json:"name,omitempty"`
	Symbol                       string `json:"symbol,omitempty"`
	ImageURI                     string `json:"imageUri,omitempty"`
	Description                  string `json:"description,omitempty"`
	AnimationURI                 string `json:"animationUri,omitempty"`
	ExternalURL                  string `json:"externalUrl,omitempty"`
	Background                   string `json:"background,omitempty"`
	Attributes                   string `json:"attributes,omitempty"` // ERC-721
	Decimals                     *int   `json:"decimals,omitempty"`   // ERC-1155
	Properties                   string `json:"properties,omitempty"` // ERC-1155
}

type erc721Token struct {
	Address      string      `json:"address"`
	Name         string      `json:"name"`
	Symbol       string      `json:"symbol"`
	ErcType      string      `json:"ercType"`
	TokenID      string      `json:"tokenId"`
	TokenURI     string      `json:"tokenUri"`
	Metadata     nftMetadata `json:"metadata"`
	OwnerAddress string      `json:"ownerAddress,omitempty"`
	ChainID      string      `json:"chainId,omitempty"` // in Erc721TokenBalance
}

type erc1155Token struct {
	Address  string      `json:"address"`
	ErcType  string      `json:"ercType"`
	TokenID  string      `json:"tokenId"`
	TokenURI string      `json:"tokenUri"`
	Metadata nftMetadata `json:"metadata"`
	ChainID  string      `json:"chainId,omitempty"` // in Erc1155TokenBalance
	Balance  string      `json:"balance,omitempty"` // in Erc1155TokenBalance
}

type erc20TokenBalance struct {
	erc20Token
	ChainID string `json:"chainId"`
	Balance string `json:"balance"`
}

// transfer covers Erc20Transfer, Erc721Transfer and Erc1155Transfer (with
// the block fields) and their *TransferDetails forms (without).
type transfer struct {
	BlockNumber    string        `json:"blockNumber,omitempty"`
	BlockTimestamp uint64        `json:"blockTimestamp,omitempty"`
	BlockHash      string        `json:"blockHash,omitempty"`
	TxHash         string        `json:"txHash,omitempty"`
	From           richAddress   `json:"from"`
	To             richAddress   `json:"to"`
	LogIndex       uint          `json:"logIndex"`
	Value          string        `json:"value,omitempty"`
	Erc20Token     *erc20Token   `json:"erc20Token,omitempty"`
	Erc721Token    *erc721Token  `json:"erc721Token,omitempty"`
	Erc1155Token   *erc1155Token `json:"erc1155Token,omitempty"`
}

type method struct {
	CallType   string `json:"callType"`
	MethodHash string `json:"methodHash"`
	MethodName string `json:"methodName,omitempty"`
}

// nativeTransaction is FullNativeTransactionDetails: NativeTransaction with
// the transaction's input and fees.
type nativeTransaction struct {
	listedTransaction
	Input                string `json:"input"`
	BaseFeePerGas        string `json:"baseFeePerGas"`
	MaxFeePerGas         string `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas,omitempty"`
}

type internalTransaction struct {
	From           richAddress `json:"from"`
	To             richAddress `json:"to"`
	InternalTxType string      `json:"internalTxType"`
	Value          string      `json:"value"`
	IsReverted     bool        `json:"isReverted"`
	GasUsed        string      `json:"gasUsed"`
	GasLimit       string      `json:"gasLimit"`
}

type transactionResponse struct {
	Erc20Transfers       []transfer            `json:"erc20Transfers"`
	Erc721Transfers      []transfer            `json:"erc721Transfers"`
	Erc1155Transfers     []transfer            `json:"erc1155Transfers"`
	InternalTransactions []internalTransaction `json:"internalTransactions"`
	NetworkTokenDetails  struct {
		NetworkToken networkToken `json:"networkToken"`
	} `json:"networkTokenDetails"`
	NativeTransaction     nativeTransaction      `json:"nativeTransaction"`
	TeleporterMessageInfo *teleporterMessageInfo `json:"teleporterMessageInfo,omitempty"`
}

// teleporterMessageInfo is glacier.json's TeleporterMessageInfo. The chain
// ids are Avalanche blockchain ids in cb58; only the other end's is set.
type teleporterMessageInfo struct {
	TeleporterMessageID string `json:"teleporterMessageId"`
	Direction           string `json:"direction"`
	SourceChainID       string `json:"sourceChainId,omitempty"`
	DestinationChainID  string `json:"destinationChainId,omitempty"`
}

type chainInfoJSON struct {
	ChainID         string       `json:"chainId"`
	Status          string       `json:"status"`
	ChainName       string       `json:"chainName"`
	Description     string       `json:"description"`
	PlatformChainID string       `json:"platformChainId,omitempty"`
	SubnetID        string       `json:"subnetId,omitempty"`
	VMID            string       `json:"vmId,omitempty"`
	VMName          string       `json:"vmName"`
	ExplorerURL     string       `json:"explorerUrl,omitempty"`
	RPCURL          string       `json:"rpcUrl"`
	WSURL           string       `json:"wsUrl,omitempty"`
	IsTestnet       bool         `json:"isTestnet"`
	NetworkToken    networkToken `json:"networkToken"`
	ChainLogoURI    string       `json:"chainLogoUri,omitempty"`
	Private         bool         `json:"private,omitempty"`
	EnabledFeatures []string     `json:"enabledFeatures,omitempty"`
}

// listedTransaction is NativeTransaction, the shape of the transaction
// lists.
type listedTransaction struct {
	BlockNumber    string      `json:"blockNumber"`
	BlockTimestamp uint64      `json:"blockTimestamp"`
	BlockHash      string      `json:"blockHash"`
	ChainID        string      `json:"chainId"`
	BlockIndex     uint        `json:"blockIndex"`
	TxHash         string      `json:"txHash"`
	TxStatus       string      `json:"txStatus"`
	TxType         uint8       `json:"txType"`
	GasLimit       string      `json:"gasLimit"`
	GasUsed        string      `json:"gasUsed"`
	GasPrice       string      `json:"gasPrice"`
	Nonce          string      `json:"nonce"`
	From           richAddress `json:"from"`
	To             richAddress `json:"to"`
	Method         method      `json:"method"`
	Value          string      `json:"value"`
}

// transactionDetails is TransactionDetails and TransactionDetailsV2: a
// transaction with the parts of it an address took part in.
type transactionDetails struct {
	NativeTransaction    listedTransaction     `json:"nativeTransaction"`
	Erc20Transfers       []transfer            `json:"erc20Transfers,omitempty"`
	Erc721Transfers      []transfer            `json:"erc721Transfers,omitempty"`
	Erc1155Transfers     []transfer            `json:"erc1155Transfers,omitempty"`
	InternalTransactions []internalTransaction `json:"internalTransactions,omitempty"`
}

// listedInternal is InternalTransaction: an internal transaction with its
// transaction and block.
type listedInternal struct {
	BlockNumber    string `json:"blockNumber"`
	BlockTimestamp uint64 `json:"blockTimestamp"`
	BlockHash      string `json:"blockHash"`
	TxHash         string `json:"txHash"`
	internalTransaction
}
