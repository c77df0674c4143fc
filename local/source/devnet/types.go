package devnet

import (
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Status is a stake's state at the world's clock, as the Data API names it.
type Status string

// The statuses of validations and delegations. Delegations are never
// StatusRemoved.
const (
	StatusPending   Status = "pending"
	StatusActive    Status = "active"
	StatusCompleted Status = "completed"
	StatusRemoved   Status = "removed"
)

// BLS is a validator's BLS credentials: the 48-byte compressed public key and
// the 96-byte proof of possession of it.
type BLS struct {
	PublicKey         []byte
	ProofOfPossession []byte
}

// Geolocation is where a validator's node runs.
type Geolocation struct {
	City, Country, CountryCode string
	Latitude, Longitude        float64
}

// Validation is one validator registration: on the primary network
// (AddPermissionlessValidatorTx, or a legacy AddValidatorTx when BLS is nil),
// on a legacy subnet (AddSubnetValidatorTx, which has no delegation fee) or
// on an L1 (ConvertSubnetToL1Tx or RegisterL1ValidatorTx).
type Validation struct {
	TxID     avax.ID
	NodeID   avax.NodeID
	SubnetID avax.ID
	Weight   uint64 // nAVAX staked (primary), or the subnet/L1 weight
	Start    int64  // Unix seconds
	End      int64  // Unix seconds; L1 validations run until removed
	// DelegationFee is in millionths (avalanchego's shares): 20000 is 2%.
	// Zero on subnets and L1s.
	DelegationFee uint32
	RewardOwner   []avax.ShortID
	BLS           *BLS // nil for legacy transactions without a signer
	// RemoveTxID and RemoveTime are set for a removed subnet validation.
	RemoveTxID avax.ID
	RemoveTime int64
	// Reward is the validation reward: paid for a completed validation,
	// potential for an active or pending one.
	Reward uint64
	// DelegationReward is the fee share of the delegators' rewards: paid for
	// a completed validation, potential otherwise.
	DelegationReward uint64
	// RewardTxID is the RewardValidatorTx of a completed primary validation.
	RewardTxID avax.ID
	// Uptime is the observed uptime in percent.
	Uptime  float64
	Version string // avalanchego version of the node
	Geo     Geolocation
	// AddHeight is the P-chain height at which the validation entered the
	// validator set; RemoveHeight the one at which it left (0: it has not).
	// Pending validations have AddHeight 0 and are in no set yet.
	AddHeight, RemoveHeight uint64
	removed                 bool
}

// Removed reports whether a subnet validation was removed before its end.
func (v *Validation) Removed() bool { return v.removed }

// Status returns the validation's status at now (Unix seconds).
func (v *Validation) Status(now int64) Status {
	switch {
	case v.removed && v.RemoveTime <= now:
		return StatusRemoved
	case now < v.Start:
		return StatusPending
	case now < v.End:
		return StatusActive
	}
	return StatusCompleted
}

// Delegation is one AddPermissionlessDelegatorTx on the primary network.
type Delegation struct {
	TxID          avax.ID
	NodeID        avax.NodeID
	Weight        uint64
	Start, End    int64
	RewardOwner   []avax.ShortID
	DelegationFee uint32 // the validator's fee, millionths
	// GrossReward is the reward (paid if completed, estimated otherwise);
	// NetReward is what is left after the validator's fee.
	GrossReward, NetReward  uint64
	RewardTxID              avax.ID // completed only
	AddHeight, RemoveHeight uint64
}

// Status returns the delegation's status at now (Unix seconds).
func (d *Delegation) Status(now int64) Status {
	switch {
	case now < d.Start:
		return StatusPending
	case now < d.End:
		return StatusActive
	}
	return StatusCompleted
}

// Owner is a threshold of addresses that controls a subnet.
type Owner struct {
	Locktime  uint64
	Threshold uint32
	Addresses []avax.ShortID
}

// Blockchain is a chain created on a subnet by a CreateChainTx.
type Blockchain struct {
	ID          avax.ID
	SubnetID    avax.ID
	Name        string
	VMID        avax.ID
	EVMChainID  uint64
	Genesis     map[string]any // the Subnet-EVM genesis, as JSON values
	CreateTime  int64
	CreateBlock uint64 // P-chain height of the CreateChainTx
}

// Subnet is a subnet created by a CreateSubnetTx; an L1 has been converted
// by a ConvertSubnetToL1Tx.
type Subnet struct {
	ID          avax.ID
	CreateTime  int64
	CreateBlock uint64
	Owner       Owner
	Chains      []*Blockchain
	// Conversion is the ConvertSubnetToL1Tx of an L1; nil for a legacy subnet.
	Conversion *L1Conversion
}

// IsL1 reports whether the subnet was converted to an L1.
func (s *Subnet) IsL1() bool { return s.Conversion != nil }

// L1Validator is one validator of a ConvertSubnetToL1Tx.
type L1Validator struct {
	NodeID                avax.NodeID
	Weight                uint64
	Balance               uint64
	BLS                   BLS
	RemainingBalanceOwner Owner
	DeactivationOwner     Owner
}

// L1Conversion is a ConvertSubnetToL1Tx.
type L1Conversion struct {
	TxID           avax.ID
	SubnetID       avax.ID
	ChainID        avax.ID // the chain of the validator manager
	Address        []byte  // the validator manager contract (20 bytes)
	Validators     []L1Validator
	Time           int64
	Height         uint64
	ConversionID   avax.ID // sha256 of the SubnetToL1ConversionData bytes
	ConversionData []byte
}

// L1Registration is a RegisterL1ValidatorTx: the fields of the
// RegisterL1Validator Warp message it carries. Its validation id is the
// message's.
type L1Registration struct {
	TxID                  avax.ID
	SubnetID              avax.ID
	NodeID                avax.NodeID
	BLS                   BLS
	Expiry                uint64
	RemainingBalanceOwner Owner
	DisableOwner          Owner
	Weight                uint64
	Balance               uint64
	Time                  int64
	Height                uint64
}

// ValidationID returns the registered validator's validation id: the
// sha256 of its RegisterL1Validator message.
func (r *L1Registration) ValidationID() avax.ID { return avax.ID(r.Message().ValidationID()) }

// L1Change is a SetL1ValidatorWeightTx, an IncreaseL1ValidatorBalanceTx or
// a DisableL1ValidatorTx of one L1 validator.
type L1Change struct {
	TxID         avax.ID
	Kind         string // the tx type
	ValidationID avax.ID
	NodeID       avax.NodeID
	Nonce        uint64 // SetL1ValidatorWeightTx
	Weight       uint64 // SetL1ValidatorWeightTx: the new weight
	Balance      uint64 // IncreaseL1ValidatorBalanceTx: the balance added
	Time         int64
	Height       uint64
}
