package dataapi

import "github.com/avaedge/avaedge/local/glacier"

// The answer shapes shared with the other local world (local/glacier).
type (
	xUTXO                      = glacier.XUTXO
	assetAmount                = glacier.AssetAmount
	chainInfo                  = glacier.ChainInfo
	blsCredentials             = glacier.BlsCredentials
	pendingReward              = glacier.PendingReward
	listPendingRewardsResponse = glacier.ListPendingRewardsResponse
	ownership                  = glacier.Ownership
	subnet                     = glacier.Subnet
	blockchain                 = glacier.Blockchain
	managerDetails             = glacier.ManagerDetails
	listSubnetsResponse        = glacier.ListSubnetsResponse
	pChainUTXO                 = glacier.PChainUTXO
	listValidatorsResponse     = glacier.ListValidatorsResponse
	delegator                  = glacier.Delegator
	listDelegatorsResponse     = glacier.ListDelegatorsResponse
	rewards                    = glacier.Rewards
	validatorHealth            = glacier.ValidatorHealth
	addressChains              = glacier.AddressChains
	listChainIDsResponse       = glacier.ListChainIDsResponse
	primaryBlock               = glacier.PrimaryBlock
	proposerDetails            = glacier.ProposerDetails
	listBlocksResponse         = glacier.ListBlocksResponse
	l1Validator                = glacier.L1Validator
	balanceOwner               = glacier.BalanceOwner
	listL1ValidatorsResponse   = glacier.ListL1ValidatorsResponse
)

type listUTXOsResponse[T any] = glacier.ListUTXOsResponse[T]
