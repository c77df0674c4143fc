package devnet

import (
	"encoding/json"
	"strconv"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// The devnet's answers of platform.getCurrentValidators (avalanchego
// v1.14.2's platformapi shapes: numbers as quoted decimals, fees and
// uptimes with four decimals), the validators its network has at the
// world's clock, as an index stores a followed node's.

type apiOwner struct {
	Locktime  string   `json:"locktime"`
	Threshold string   `json:"threshold"`
	Addresses []string `json:"addresses"`
}

type apiDelegator struct {
	TxID            string    `json:"txID"`
	StartTime       string    `json:"startTime"`
	EndTime         string    `json:"endTime"`
	Weight          string    `json:"weight"`
	NodeID          string    `json:"nodeID"`
	RewardOwner     *apiOwner `json:"rewardOwner,omitempty"`
	PotentialReward string    `json:"potentialReward"`
}

type apiValidator struct {
	TxID                   string         `json:"txID"`
	StartTime              string         `json:"startTime"`
	EndTime                string         `json:"endTime"`
	Weight                 string         `json:"weight"`
	NodeID                 string         `json:"nodeID"`
	ValidationRewardOwner  *apiOwner      `json:"validationRewardOwner,omitempty"`
	DelegationRewardOwner  *apiOwner      `json:"delegationRewardOwner,omitempty"`
	PotentialReward        string         `json:"potentialReward,omitempty"`
	AccruedDelegateeReward string         `json:"accruedDelegateeReward,omitempty"`
	DelegationFee          string         `json:"delegationFee,omitempty"`
	Uptime                 string         `json:"uptime,omitempty"`
	Connected              *bool          `json:"connected,omitempty"`
	Signer                 *signerJSON    `json:"signer,omitempty"`
	DelegatorCount         string         `json:"delegatorCount,omitempty"`
	DelegatorWeight        string         `json:"delegatorWeight,omitempty"`
	Delegators             []apiDelegator `json:"delegators,omitempty"`
}

type apiL1Validator struct {
	NodeID                string   `json:"nodeID"`
	Weight                string   `json:"weight"`
	StartTime             string   `json:"startTime"`
	ValidationID          string   `json:"validationID"`
	PublicKey             string   `json:"publicKey"`
	RemainingBalanceOwner apiOwner `json:"remainingBalanceOwner"`
	DeactivationOwner     apiOwner `json:"deactivationOwner"`
	MinNonce              string   `json:"minNonce"`
	Balance               string   `json:"balance"`
}

// current is one subnet's getCurrentValidators answer.
type current struct {
	subnet avax.ID
	body   json.RawMessage
}

func u64s(v uint64) string { return strconv.FormatUint(v, 10) }

func i64s(v int64) string { return strconv.FormatInt(v, 10) }

// float4 prints f as avalanchego's json.Float32: four decimals.
func float4(f float64) string { return strconv.FormatFloat(f, 'f', 4, 32) }

func apiOwnerOf(o Owner) *apiOwner {
	addrs := make([]string, len(o.Addresses))
	for i, a := range o.Addresses {
		addrs[i] = avax.FormatAddress("P", avanet.Local.HRP, a)
	}
	return &apiOwner{Locktime: u64s(o.Locktime), Threshold: strconv.FormatUint(uint64(o.Threshold), 10), Addresses: addrs}
}

// currentValidators returns the answers for the primary network and every
// subnet.
func (w *World) currentValidators() ([]current, error) {
	now := w.now
	connected := true
	var primary []apiValidator
	subnets := map[avax.ID][]any{}
	for _, v := range w.validations {
		if v.Status(now) != StatusActive {
			continue
		}
		staker := apiValidator{TxID: v.TxID.String(), StartTime: i64s(v.Start), EndTime: i64s(v.End), Weight: u64s(v.Weight), NodeID: v.NodeID.String()}
		if !v.SubnetID.IsEmpty() {
			subnets[v.SubnetID] = append(subnets[v.SubnetID], staker)
			continue
		}
		owner := apiOwnerOf(Owner{Threshold: 1, Addresses: v.RewardOwner})
		staker.ValidationRewardOwner, staker.DelegationRewardOwner = owner, owner
		staker.PotentialReward = u64s(v.Reward)
		staker.DelegationFee = float4(float64(v.DelegationFee) / 10000)
		staker.Uptime, staker.Connected = float4(v.Uptime), &connected
		if v.BLS != nil {
			staker.Signer = &signerJSON{PublicKey: avax.EncodeHexNC(v.BLS.PublicKey), ProofOfPossession: avax.EncodeHexNC(v.BLS.ProofOfPossession)}
		}
		var accrued, weight uint64
		for _, d := range w.delegations {
			if w.validationOf(d) != v {
				continue
			}
			switch d.Status(now) {
			case StatusCompleted:
				accrued += d.GrossReward - d.NetReward
			case StatusActive:
				weight += d.Weight
				staker.Delegators = append(staker.Delegators, apiDelegator{TxID: d.TxID.String(), StartTime: i64s(d.Start), EndTime: i64s(d.End),
					Weight: u64s(d.Weight), NodeID: d.NodeID.String(), RewardOwner: apiOwnerOf(Owner{Threshold: 1, Addresses: d.RewardOwner}),
					PotentialReward: u64s(d.GrossReward)})
			}
		}
		staker.AccruedDelegateeReward = u64s(accrued)
		staker.DelegatorCount, staker.DelegatorWeight = strconv.Itoa(len(staker.Delegators)), u64s(weight)
		primary = append(primary, staker)
	}
	out := []current{}
	add := func(subnet avax.ID, validators any) error {
		body, err := json.Marshal(map[string]any{"validators": validators})
		out = append(out, current{subnet: subnet, body: body})
		return err
	}
	if err := add(PChainID, primary); err != nil {
		return nil, err
	}
	for _, s := range w.subnets {
		vals := subnets[s.ID]
		if s.Conversion != nil {
			vals = w.currentL1(s)
		}
		if vals == nil {
			vals = []any{}
		}
		if err := add(s.ID, vals); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// currentL1 returns the L1 validators of s as they stand after every
// change: their weights, balances (0 when disabled) and nonces.
func (w *World) currentL1(s *Subnet) []any {
	c := s.Conversion
	type state struct {
		v        apiL1Validator
		balance  uint64
		disabled bool
	}
	var vals []*state
	byID := map[avax.ID]*state{}
	for i, v := range c.Validators {
		id := s.ID.Append(uint32(i))
		st := &state{balance: v.Balance, v: apiL1Validator{NodeID: v.NodeID.String(), Weight: u64s(v.Weight), StartTime: i64s(c.Time),
			ValidationID: id.String(), PublicKey: avax.EncodeHexNC(v.BLS.PublicKey), RemainingBalanceOwner: *apiOwnerOf(v.RemainingBalanceOwner),
			DeactivationOwner: *apiOwnerOf(v.DeactivationOwner), MinNonce: "0"}}
		vals, byID[id] = append(vals, st), st
	}
	for _, r := range w.registers {
		id := r.ValidationID()
		st := &state{balance: r.Balance, v: apiL1Validator{NodeID: r.NodeID.String(), Weight: u64s(r.Weight), StartTime: i64s(r.Time),
			ValidationID: id.String(), PublicKey: avax.EncodeHexNC(r.BLS.PublicKey), RemainingBalanceOwner: *apiOwnerOf(r.RemainingBalanceOwner),
			DeactivationOwner: *apiOwnerOf(r.DisableOwner), MinNonce: "0"}}
		vals, byID[id] = append(vals, st), st
	}
	for _, o := range w.l1Ops {
		st := byID[o.ValidationID]
		switch o.Kind {
		case "IncreaseL1ValidatorBalanceTx":
			st.balance += o.Balance
		case "SetL1ValidatorWeightTx":
			st.v.Weight, st.v.MinNonce = u64s(o.Weight), u64s(o.Nonce+1)
		case "DisableL1ValidatorTx":
			st.disabled = true
		}
	}
	out := make([]any, len(vals))
	for i, st := range vals {
		st.v.Balance = u64s(st.balance)
		if st.disabled {
			st.v.Balance = "0"
		}
		out[i] = st.v
	}
	return out
}
