// Package glacier holds the Data API's answer shapes (glacier.json's
// schemas) that local/api/dataapi answers, from the devnet and from a
// followed node alike. Optional fields are left out rather than null (a
// required but nullable one, like geolocation, is null when unknown), and
// 64-bit quantities are strings, as the real service sends them.
package glacier

// XUTXO is Utxo, the X- and C-chain form.
type XUTXO struct {
	Addresses            []string    `json:"addresses"`
	Asset                AssetAmount `json:"asset"`
	ConsumedOnChainID    string      `json:"consumedOnChainId"`
	ConsumingTxHash      string      `json:"consumingTxHash,omitempty"`
	CreatedOnChainID     string      `json:"createdOnChainId"`
	UTXOID               string      `json:"utxoId"`
	UTXOBytes            string      `json:"utxoBytes"`
	ConsumingTxTimestamp int64       `json:"consumingTxTimestamp,omitempty"`
	CreationTxHash       string      `json:"creationTxHash"`
	Locktime             uint64      `json:"locktime"`
	OutputIndex          string      `json:"outputIndex"`
	Threshold            uint32      `json:"threshold"`
	Timestamp            int64       `json:"timestamp"`
	UTXOType             string      `json:"utxoType"`
}

// AssetAmount is AssetAmount, for AVAX.
type AssetAmount struct {
	AssetID      string `json:"assetId"`
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Denomination int    `json:"denomination"`
	Type         string `json:"type"`
	Amount       string `json:"amount"`
}

// ChainInfo is PrimaryNetworkChainInfo.
type ChainInfo struct {
	ChainName string `json:"chainName"`
	Network   string `json:"network"`
}

type BlsCredentials struct {
	PublicKey         string `json:"publicKey"`
	ProofOfPossession string `json:"proofOfPossession"`
}

type PendingReward struct {
	Addresses       []string    `json:"addresses"`
	TxHash          string      `json:"txHash"`
	AmountStaked    string      `json:"amountStaked"`
	NodeID          string      `json:"nodeId"`
	StartTimestamp  int64       `json:"startTimestamp"`
	EndTimestamp    int64       `json:"endTimestamp"`
	RewardType      string      `json:"rewardType"`
	Progress        float64     `json:"progress"`
	EstimatedReward AssetAmount `json:"estimatedReward"`
}

type ListPendingRewardsResponse struct {
	NextPageToken  string          `json:"nextPageToken,omitempty"`
	PendingRewards []PendingReward `json:"pendingRewards"`
}

type Ownership struct {
	Locktime  uint64   `json:"locktime"`
	Threshold uint32   `json:"threshold"`
	Addresses []string `json:"addresses"`
}

type Subnet struct {
	CreateBlockTimestamp        int64           `json:"createBlockTimestamp"`
	CreateBlockIndex            string          `json:"createBlockIndex"`
	SubnetID                    string          `json:"subnetId"`
	OwnerAddresses              []string        `json:"ownerAddresses"`
	Threshold                   uint32          `json:"threshold"`
	Locktime                    uint64          `json:"locktime"`
	SubnetOwnershipInfo         Ownership       `json:"subnetOwnershipInfo"`
	IsL1                        bool            `json:"isL1"`
	L1ConversionTransactionHash string          `json:"l1ConversionTransactionHash,omitempty"`
	L1ValidatorManagerDetails   *ManagerDetails `json:"l1ValidatorManagerDetails,omitempty"`
	Blockchains                 []Blockchain    `json:"blockchains"`
}

type Blockchain struct {
	CreateBlockTimestamp int64          `json:"createBlockTimestamp"`
	CreateBlockNumber    string         `json:"createBlockNumber"`
	BlockchainID         string         `json:"blockchainId"`
	VMID                 string         `json:"vmId"`
	SubnetID             string         `json:"subnetId"`
	BlockchainName       string         `json:"blockchainName"`
	EVMChainID           uint64         `json:"evmChainId,omitempty"`
	GenesisData          map[string]any `json:"genesisData,omitempty"`
}

type ManagerDetails struct {
	BlockchainID    string `json:"blockchainId"`
	ContractAddress string `json:"contractAddress"`
}

type ListSubnetsResponse struct {
	NextPageToken string   `json:"nextPageToken,omitempty"`
	Subnets       []Subnet `json:"subnets"`
}

type ListUTXOsResponse[T any] struct {
	NextPageToken string    `json:"nextPageToken,omitempty"`
	UTXOs         []T       `json:"utxos"`
	ChainInfo     ChainInfo `json:"chainInfo"`
}

// PChainUTXO is PChainUtxo.
type PChainUTXO struct {
	Addresses               []string    `json:"addresses"`
	Asset                   AssetAmount `json:"asset"`
	ConsumedOnChainID       string      `json:"consumedOnChainId"`
	ConsumingTxHash         string      `json:"consumingTxHash,omitempty"`
	CreatedOnChainID        string      `json:"createdOnChainId"`
	UTXOID                  string      `json:"utxoId"`
	UTXOBytes               string      `json:"utxoBytes"`
	Amount                  string      `json:"amount"`
	AssetID                 string      `json:"assetId"`
	BlockNumber             string      `json:"blockNumber"`
	BlockTimestamp          int64       `json:"blockTimestamp"`
	ConsumingBlockNumber    string      `json:"consumingBlockNumber,omitempty"`
	ConsumingBlockTimestamp int64       `json:"consumingBlockTimestamp,omitempty"`
	PlatformLocktime        uint64      `json:"platformLocktime"`
	OutputIndex             uint32      `json:"outputIndex"`
	RewardType              string      `json:"rewardType,omitempty"`
	StakeableLocktime       uint64      `json:"stakeableLocktime,omitempty"`
	Staked                  bool        `json:"staked"`
	Threshold               uint32      `json:"threshold"`
	TxHash                  string      `json:"txHash"`
	UTXOEndTimestamp        int64       `json:"utxoEndTimestamp,omitempty"`
	UTXOStartTimestamp      int64       `json:"utxoStartTimestamp,omitempty"`
	UTXOType                string      `json:"utxoType"`
}

// ValidatorBase are the fields of every ValidatorDetails variant.
type ValidatorBase struct {
	TxHash         string          `json:"txHash"`
	NodeID         string          `json:"nodeId"`
	SubnetID       string          `json:"subnetId"`
	AmountStaked   string          `json:"amountStaked"`
	DelegationFee  string          `json:"delegationFee,omitempty"`
	StartTimestamp int64           `json:"startTimestamp"`
	EndTimestamp   int64           `json:"endTimestamp"`
	BLSCredentials *BlsCredentials `json:"blsCredentials,omitempty"`
}

// Geolocation is where a validator's node runs.
type Geolocation struct {
	City        string  `json:"city"`
	Country     string  `json:"country"`
	CountryCode string  `json:"countryCode"`
	Latitude    float64 `json:"latitude"`
	Longitude   float64 `json:"longitude"`
}

// ActiveValidator is ActiveValidatorDetails. Geolocation is required and
// nullable: null where the node's location is not known.
type ActiveValidator struct {
	ValidatorBase
	StakePercentage    float64         `json:"stakePercentage"`
	DelegatorCount     int             `json:"delegatorCount"`
	AmountDelegated    string          `json:"amountDelegated,omitempty"`
	UptimePerformance  float64         `json:"uptimePerformance"`
	AvalancheGoVersion string          `json:"avalancheGoVersion,omitempty"`
	DelegationCapacity string          `json:"delegationCapacity,omitempty"`
	PotentialRewards   Rewards         `json:"potentialRewards"`
	ValidationStatus   string          `json:"validationStatus"`
	ValidatorHealth    ValidatorHealth `json:"validatorHealth"`
	Geolocation        *Geolocation    `json:"geolocation"`
}

// CompletedValidator is CompletedValidatorDetails.
type CompletedValidator struct {
	ValidatorBase
	DelegatorCount   int     `json:"delegatorCount"`
	AmountDelegated  string  `json:"amountDelegated,omitempty"`
	Rewards          Rewards `json:"rewards"`
	ValidationStatus string  `json:"validationStatus"`
}

// PendingValidator is PendingValidatorDetails.
type PendingValidator struct {
	ValidatorBase
	ValidationStatus string `json:"validationStatus"`
}

// RemovedValidator is RemovedValidatorDetails.
type RemovedValidator struct {
	ValidatorBase
	RemoveTxHash     string `json:"removeTxHash"`
	RemoveTimestamp  int64  `json:"removeTimestamp"`
	ValidationStatus string `json:"validationStatus"`
}

type ListValidatorsResponse struct {
	NextPageToken string `json:"nextPageToken,omitempty"`
	Validators    []any  `json:"validators"`
}

type Delegator struct {
	TxHash               string   `json:"txHash"`
	NodeID               string   `json:"nodeId"`
	RewardAddresses      []string `json:"rewardAddresses"`
	AmountDelegated      string   `json:"amountDelegated"`
	DelegationFee        string   `json:"delegationFee"`
	StartTimestamp       int64    `json:"startTimestamp"`
	EndTimestamp         int64    `json:"endTimestamp"`
	GrossReward          string   `json:"grossReward,omitempty"`
	NetReward            string   `json:"netReward,omitempty"`
	EstimatedGrossReward string   `json:"estimatedGrossReward,omitempty"`
	EstimatedNetReward   string   `json:"estimatedNetReward,omitempty"`
	DelegationStatus     string   `json:"delegationStatus"`
}

type ListDelegatorsResponse struct {
	NextPageToken string      `json:"nextPageToken,omitempty"`
	Delegators    []Delegator `json:"delegators"`
}

type Rewards struct {
	ValidationRewardAmount string   `json:"validationRewardAmount"`
	DelegationRewardAmount string   `json:"delegationRewardAmount"`
	RewardAddresses        []string `json:"rewardAddresses,omitempty"`
	RewardTxHash           string   `json:"rewardTxHash,omitempty"`
}

type ValidatorHealth struct {
	ReachabilityPercent          float64 `json:"reachabilityPercent"`
	BenchedPChainRequestsPercent float64 `json:"benchedPChainRequestsPercent"`
	BenchedXChainRequestsPercent float64 `json:"benchedXChainRequestsPercent"`
	BenchedCChainRequestsPercent float64 `json:"benchedCChainRequestsPercent"`
}

type AddressChains struct {
	Address       string   `json:"address"`
	BlockchainIDs []string `json:"blockchainIds"`
}

type ListChainIDsResponse struct {
	Addresses []AddressChains `json:"addresses"`
}

type PrimaryBlock struct {
	BlockNumber             string           `json:"blockNumber"`
	BlockHash               string           `json:"blockHash"`
	ParentHash              string           `json:"parentHash"`
	BlockTimestamp          int64            `json:"blockTimestamp"`
	BlockType               string           `json:"blockType"`
	TxCount                 int              `json:"txCount"`
	Transactions            []string         `json:"transactions"`
	BlockSizeBytes          int              `json:"blockSizeBytes"`
	L1ValidatorsAccruedFees *uint64          `json:"l1ValidatorsAccruedFees,omitempty"`
	ActiveL1Validators      *int             `json:"activeL1Validators,omitempty"`
	CurrentSupply           string           `json:"currentSupply,omitempty"`
	ProposerDetails         *ProposerDetails `json:"proposerDetails,omitempty"`
}

type ProposerDetails struct {
	ProposerID           string `json:"proposerId"`
	ProposerParentID     string `json:"proposerParentId"`
	ProposerNodeID       string `json:"proposerNodeId"`
	ProposerPChainHeight uint64 `json:"proposerPChainHeight"`
	ProposerTimestamp    int64  `json:"proposerTimestamp"`
}

type ListBlocksResponse struct {
	NextPageToken string         `json:"nextPageToken,omitempty"`
	Blocks        []PrimaryBlock `json:"blocks"`
	ChainInfo     ChainInfo      `json:"chainInfo"`
}

// L1Validator is L1ValidatorDetailsFull.
type L1Validator struct {
	ValidationID          string         `json:"validationId"`
	ValidationIDHex       string         `json:"validationIdHex"`
	NodeID                string         `json:"nodeId"`
	SubnetID              string         `json:"subnetId"`
	Weight                uint64         `json:"weight"`
	RemainingBalance      uint64         `json:"remainingBalance"`
	CreationTimestamp     int64          `json:"creationTimestamp"`
	BLSCredentials        BlsCredentials `json:"blsCredentials"`
	RemainingBalanceOwner BalanceOwner   `json:"remainingBalanceOwner"`
	DeactivationOwner     BalanceOwner   `json:"deactivationOwner"`
}

// BalanceOwner is BalanceOwner.
type BalanceOwner struct {
	Addresses []string `json:"addresses"`
	Threshold uint32   `json:"threshold"`
}

type ListL1ValidatorsResponse struct {
	NextPageToken string        `json:"nextPageToken,omitempty"`
	Validators    []L1Validator `json:"validators"`
	BlockHeight   string        `json:"blockHeight"`
}

// PChainTx is PChainTransaction.
type PChainTx struct {
	TxHash                         string               `json:"txHash"`
	TxType                         string               `json:"txType"`
	BlockTimestamp                 int64                `json:"blockTimestamp"`
	BlockNumber                    string               `json:"blockNumber"`
	BlockHash                      string               `json:"blockHash"`
	ConsumedUTXOs                  []PChainUTXO         `json:"consumedUtxos"`
	EmittedUTXOs                   []PChainUTXO         `json:"emittedUtxos"`
	SourceChain                    string               `json:"sourceChain,omitempty"`
	DestinationChain               string               `json:"destinationChain,omitempty"`
	Value                          []AssetAmount        `json:"value"`
	AmountBurned                   []AssetAmount        `json:"amountBurned"`
	AmountStaked                   []AssetAmount        `json:"amountStaked"`
	AmountL1ValidatorBalanceBurned []AssetAmount        `json:"amountL1ValidatorBalanceBurned"`
	StartTimestamp                 int64                `json:"startTimestamp,omitempty"`
	EndTimestamp                   int64                `json:"endTimestamp,omitempty"`
	NodeID                         string               `json:"nodeId,omitempty"`
	SubnetID                       string               `json:"subnetId,omitempty"`
	Memo                           string               `json:"memo,omitempty"`
	SubnetOwnershipInfo            *SubnetOwnershipInfo `json:"subnetOwnershipInfo,omitempty"`
	BlockchainInfo                 *BlockchainInfo      `json:"blockchainInfo,omitempty"`
}

// SubnetOwnershipInfo is SubnetOwnershipInfo.
type SubnetOwnershipInfo struct {
	Locktime  uint64   `json:"locktime"`
	Threshold uint32   `json:"threshold"`
	Addresses []string `json:"addresses"`
}

// BlockchainInfo is BlockchainInfo.
type BlockchainInfo struct {
	ChainName string `json:"chainName"`
	VMID      string `json:"vmId"`
}

// XChainTx is XChainLinearTransaction.
type XChainTx struct {
	TxHash           string        `json:"txHash"`
	ChainFormat      string        `json:"chainFormat"`
	Timestamp        int64         `json:"timestamp"`
	TxType           string        `json:"txType"`
	Memo             string        `json:"memo"`
	ConsumedUTXOs    []XUTXO       `json:"consumedUtxos"`
	EmittedUTXOs     []XUTXO       `json:"emittedUtxos"`
	AmountUnlocked   []AssetAmount `json:"amountUnlocked"`
	AmountCreated    []AssetAmount `json:"amountCreated"`
	SourceChain      string        `json:"sourceChain,omitempty"`
	DestinationChain string        `json:"destinationChain,omitempty"`
	AssetCreated     *AssetDetails `json:"assetCreated,omitempty"`
	BlockHeight      uint64        `json:"blockHeight"`
	BlockHash        string        `json:"blockHash"`
}

// AssetDetails is XChainAssetDetails.
type AssetDetails struct {
	AssetID            string `json:"assetId"`
	Name               string `json:"name"`
	Symbol             string `json:"symbol"`
	Denomination       int    `json:"denomination"`
	Type               string `json:"type"`
	CreatedAtTimestamp int64  `json:"createdAtTimestamp"`
	Cap                string `json:"cap"`
}

// ListTxsResponse is ListPChainTransactionsResponse or
// ListXChainTransactionsResponse.
type ListTxsResponse[T any] struct {
	NextPageToken string    `json:"nextPageToken,omitempty"`
	Transactions  []T       `json:"transactions"`
	ChainInfo     ChainInfo `json:"chainInfo"`
}

// Vertex is XChainVertex, a vertex of the X-Chain before its linearization.
type Vertex struct {
	VertexHash      string   `json:"vertexHash"`
	ParentHashes    []string `json:"parentHashes"`
	VertexHeight    uint64   `json:"vertexHeight"`
	VertexIndex     int      `json:"vertexIndex"`
	VertexTimestamp int64    `json:"vertexTimestamp"`
	TxCount         int      `json:"txCount"`
	Transactions    []string `json:"transactions"`
	VertexSizeBytes int      `json:"vertexSizeBytes"`
}

// ListVerticesResponse is ListXChainVerticesResponse.
type ListVerticesResponse struct {
	NextPageToken string    `json:"nextPageToken,omitempty"`
	Vertices      []Vertex  `json:"vertices"`
	ChainInfo     ChainInfo `json:"chainInfo"`
}

// CChainAtomicTx is CChainExportTransaction (TxType ExportTx, with
// EVMInputs and EmittedUTXOs) or CChainImportTransaction (ImportTx, with
// EVMOutputs and ConsumedUTXOs), a C-Chain atomic transaction.
type CChainAtomicTx struct {
	TxHash           string        `json:"txHash"`
	BlockHeight      uint64        `json:"blockHeight"`
	BlockHash        string        `json:"blockHash"`
	Timestamp        int64         `json:"timestamp"`
	Memo             string        `json:"memo"`
	AmountUnlocked   []AssetAmount `json:"amountUnlocked"`
	AmountCreated    []AssetAmount `json:"amountCreated"`
	SourceChain      string        `json:"sourceChain"`
	DestinationChain string        `json:"destinationChain"`
	TxType           string        `json:"txType"`
	EVMInputs        []EVMInput    `json:"evmInputs,omitempty"`
	EmittedUTXOs     []XUTXO       `json:"emittedUtxos,omitempty"`
	EVMOutputs       []EVMOutput   `json:"evmOutputs,omitempty"`
	ConsumedUTXOs    []XUTXO       `json:"consumedUtxos,omitempty"`
}

// EVMInput is EVMInput: an export's debit of an EVM address, with the
// credentials that signed it.
type EVMInput struct {
	FromAddress string           `json:"fromAddress"`
	Asset       AssetAmount      `json:"asset"`
	Credentials []UTXOCredential `json:"credentials"`
}

// EVMOutput is EVMOutput: an import's credit of an EVM address.
type EVMOutput struct {
	ToAddress string      `json:"toAddress"`
	Asset     AssetAmount `json:"asset"`
}

// UTXOCredential is UtxoCredential: a signature and the public key it
// recovers to, both base64 (unpadded).
type UTXOCredential struct {
	Signature string `json:"signature"`
	PublicKey string `json:"publicKey"`
}
