package glacier

// AggregatedAmount is AggregatedAssetAmount: an asset's amount over
// utxoCount UTXOs.
type AggregatedAmount struct {
	AssetID      string `json:"assetId"`
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Denomination int    `json:"denomination"`
	Type         string `json:"type"`
	Amount       string `json:"amount"`
	UTXOCount    int    `json:"utxoCount"`
}

// SharedAmount is PChainSharedAsset, XChainSharedAssetBalance and
// CChainSharedAssetBalance: an amount in a chain's shared memory, from
// the chain sharedWithChainId. Status (P-Chain only) is "locked" or
// "unlocked".
type SharedAmount struct {
	AggregatedAmount
	SharedWithChainID string `json:"sharedWithChainId"`
	Status            string `json:"status,omitempty"`
}

// PChainBalances is PChainBalance.
type PChainBalances struct {
	UnlockedUnstaked     []AggregatedAmount `json:"unlockedUnstaked"`
	UnlockedStaked       []AggregatedAmount `json:"unlockedStaked"`
	LockedPlatform       []AggregatedAmount `json:"lockedPlatform"`
	LockedStakeable      []AggregatedAmount `json:"lockedStakeable"`
	LockedStaked         []AggregatedAmount `json:"lockedStaked"`
	PendingStaked        []AggregatedAmount `json:"pendingStaked"`
	AtomicMemoryUnlocked []SharedAmount     `json:"atomicMemoryUnlocked"`
	AtomicMemoryLocked   []SharedAmount     `json:"atomicMemoryLocked"`
}

// XChainBalances is XChainBalances.
type XChainBalances struct {
	Locked               []AggregatedAmount `json:"locked"`
	Unlocked             []AggregatedAmount `json:"unlocked"`
	AtomicMemoryUnlocked []SharedAmount     `json:"atomicMemoryUnlocked"`
	AtomicMemoryLocked   []SharedAmount     `json:"atomicMemoryLocked"`
}

// CChainBalances is CChainAtomicBalances.
type CChainBalances struct {
	AtomicMemoryUnlocked []SharedAmount `json:"atomicMemoryUnlocked"`
	AtomicMemoryLocked   []SharedAmount `json:"atomicMemoryLocked"`
}

// ListBalancesResponse is ListPChainBalancesResponse,
// ListXChainBalancesResponse or ListCChainAtomicBalancesResponse.
type ListBalancesResponse[T any] struct {
	Balances  T         `json:"balances"`
	ChainInfo ChainInfo `json:"chainInfo"`
}
