package glacier

// NetworkDetails is GetNetworkDetailsResponse.
type NetworkDetails struct {
	ValidatorDetails ValidatorsDetails `json:"validatorDetails"`
	DelegatorDetails DelegatorsDetails `json:"delegatorDetails"`
}

// ValidatorsDetails is ValidatorsDetails.
type ValidatorsDetails struct {
	ValidatorCount               int                   `json:"validatorCount"`
	TotalAmountStaked            string                `json:"totalAmountStaked"`
	EstimatedAnnualStakingReward string                `json:"estimatedAnnualStakingReward"`
	StakingDistributionByVersion []StakingDistribution `json:"stakingDistributionByVersion"`
	StakingRatio                 string                `json:"stakingRatio"`
}

// StakingDistribution is StakingDistribution.
type StakingDistribution struct {
	Version        string `json:"version"`
	AmountStaked   string `json:"amountStaked"`
	ValidatorCount int    `json:"validatorCount"`
}

// DelegatorsDetails is DelegatorsDetails.
type DelegatorsDetails struct {
	DelegatorCount    int    `json:"delegatorCount"`
	TotalAmountStaked string `json:"totalAmountStaked"`
}

// ListBlockchainsResponse is ListBlockchainsResponse.
type ListBlockchainsResponse struct {
	NextPageToken string       `json:"nextPageToken,omitempty"`
	Blockchains   []Blockchain `json:"blockchains"`
}

// AvaxSupply is AvaxSupplyResponse: amounts in AVAX, as decimal strings.
type AvaxSupply struct {
	CirculatingSupply string `json:"circulatingSupply"`
	TotalSupply       string `json:"totalSupply"`
	TotalPBurned      string `json:"totalPBurned"`
	TotalCBurned      string `json:"totalCBurned"`
	TotalXBurned      string `json:"totalXBurned"`
	TotalStaked       string `json:"totalStaked"`
	TotalLocked       string `json:"totalLocked"`
	TotalRewards      string `json:"totalRewards"`
	LastUpdated       string `json:"lastUpdated"`
	GenesisUnlock     string `json:"genesisUnlock"`
	L1ValidatorFees   string `json:"l1ValidatorFees"`
}

// LastActivity is LastActivityTimestamp.
type LastActivity struct {
	Timestamp   int64  `json:"timestamp"`
	BlockNumber string `json:"blockNumber"`
	TxHash      string `json:"txHash"`
	UTXOID      string `json:"utxoId"`
	IsConsumed  bool   `json:"isConsumed"`
	ChainName   string `json:"chainName"`
	Network     string `json:"network"`
}

// HistoricalReward is HistoricalReward (no historicalPrice: the local
// world has no prices).
type HistoricalReward struct {
	Addresses      []string    `json:"addresses"`
	TxHash         string      `json:"txHash"`
	AmountStaked   string      `json:"amountStaked"`
	NodeID         string      `json:"nodeId"`
	StartTimestamp int64       `json:"startTimestamp"`
	EndTimestamp   int64       `json:"endTimestamp"`
	RewardType     string      `json:"rewardType"`
	UTXOID         string      `json:"utxoId"`
	OutputIndex    uint32      `json:"outputIndex"`
	Reward         AssetAmount `json:"reward"`
	RewardTxHash   string      `json:"rewardTxHash"`
}

// ListHistoricalRewardsResponse is ListHistoricalRewardsResponse.
type ListHistoricalRewardsResponse struct {
	NextPageToken     string             `json:"nextPageToken,omitempty"`
	HistoricalRewards []HistoricalReward `json:"historicalRewards"`
}
