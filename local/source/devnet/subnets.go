package devnet

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// ValidatorManagerAddress is the L1's validator manager contract, the usual
// proxy address of an L1's genesis.
var ValidatorManagerAddress = []byte{0x0f, 0xee, 0xdc, 0x0d, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

// evmGenesis returns a Subnet-EVM genesis with every field the Data API's
// EvmGenesisDto names.
func evmGenesis(chainID uint64, ts int64, owner string) map[string]any {
	allow := func() map[string]any {
		return map[string]any{"blockTimestamp": 0, "adminAddresses": []any{owner}, "managerAddresses": []any{}, "enabledAddresses": []any{}}
	}
	return map[string]any{
		"airdropAmount": nil,
		"airdropHash":   "0x0000000000000000000000000000000000000000000000000000000000000000",
		"alloc": map[string]any{
			owner[2:]: map[string]any{"balance": "0x52b7d2dcc80cd2e4000000"},
			"0feedc0de0000000000000000000000000000000": map[string]any{
				"balance": "0x0", "code": "0x6080604052600436106100",
				"storage": map[string]any{"0x0000000000000000000000000000000000000000000000000000000000000000": "0x0000000000000000000000000000000000000000000000000000000000000001"},
			},
		},
		"baseFeePerGas": nil,
		"blobGasUsed":   nil,
		"coinbase":      "0x0000000000000000000000000000000000000000",
		"config": map[string]any{
			"berlinBlock": 0, "byzantiumBlock": 0, "chainId": chainID, "constantinopleBlock": 0,
			"eip150Block": 0, "eip150Hash": "0x2086799aeebeae135c246c65021c82b4e15a2c451340993aacfd2751886514f0",
			"eip155Block": 0, "eip158Block": 0, "homesteadBlock": 0, "istanbulBlock": 0, "londonBlock": 0,
			"muirGlacierBlock": 0, "petersburgBlock": 0, "subnetEVMTimestamp": 0, "allowFeeRecipients": false,
			"feeConfig": map[string]any{
				"baseFeeChangeDenominator": 36, "blockGasCostStep": 200000, "gasLimit": 12000000,
				"maxBlockGasCost": 1000000, "minBaseFee": 25000000000, "minBlockGasCost": 0,
				"targetBlockRate": 2, "targetGas": 60000000,
			},
			"warpConfig":                      map[string]any{"blockTimestamp": ts, "quorumNumerator": 67, "requirePrimaryNetworkSigners": true},
			"txAllowListConfig":               allow(),
			"contractDeployerAllowListConfig": allow(),
			"contractNativeMinterConfig":      allow(),
			"feeManagerConfig":                allow(),
			"rewardManagerConfig":             allow(),
		},
		"difficulty":    "0x0",
		"excessBlobGas": nil,
		"extraData":     "0x",
		"gasLimit":      "0xb71b00",
		"gasUsed":       "0x0",
		"mixHash":       "0x0000000000000000000000000000000000000000000000000000000000000000",
		"nonce":         "0x0",
		"number":        "0x0",
		"parentHash":    "0x0000000000000000000000000000000000000000000000000000000000000000",
		"timestamp":     fmt.Sprintf("0x%x", ts),
	}
}

// ewoqEVM is the ewoq key's EVM address.
const ewoqEVM = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"

// EwoqBalance returns ewoq's balance in the chain's genesis, in wei.
func (c *Blockchain) EwoqBalance() (*big.Int, bool) {
	alloc, _ := c.Genesis["alloc"].(map[string]any)
	acct, _ := alloc[ewoqEVM[2:]].(map[string]any)
	hex, _ := acct["balance"].(string)
	digits, ok := strings.CutPrefix(hex, "0x")
	if !ok {
		return nil, false
	}
	return new(big.Int).SetString(digits, 16)
}

func (w *World) ewoqOwner() Owner {
	return Owner{Threshold: 1, Addresses: []avax.ShortID{w.addrs[0]}}
}

// scheduleSubnets creates a legacy subnet with a Subnet-EVM chain and permissioned
// validators (active, completed and removed), and an L1 converted with two
// validators plus one registered later, whose validators then change.
func (w *World) scheduleSubnets(p *schedule) {
	s1 := w.scheduleLegacySubnet(p)
	s2 := w.subnetWithChain(p, w.genesis+8*day, "devl1", 898989)
	l1 := w.nodes[len(w.nodes)-3:]
	conv := w.scheduleConversion(p, s2, l1[:2])
	reg := &L1Registration{SubnetID: s2.ID, NodeID: l1[2].id, BLS: l1[2].bls, Expiry: uint64(w.genesis + 10*day + day),
		RemainingBalanceOwner: w.ewoqOwner(), DisableOwner: w.ewoqOwner(), Weight: 50, Balance: nAVAX, Time: w.genesis + 10*day}
	reg.TxID = p.add(&PTx{Kind: "RegisterL1ValidatorTx", Time: reg.Time, register: reg, onBlock: func(h uint64) {
		reg.Height = h
		w.l1Changes = append(w.l1Changes, SetChange{Height: h, NodeID: reg.NodeID, Weight: int64(reg.Weight), PublicKey: reg.BLS.PublicKey})
	}}).ID
	w.registers = append(w.registers, reg)
	w.scheduleL1Changes(p, s2, conv, reg)
	w.subnets = []*Subnet{s1, s2}
	w.sortStakes()
}

// subnetWithChain schedules a subnet, owned by ewoq, created at t, and its
// Subnet-EVM chain an hour later.
func (w *World) subnetWithChain(p *schedule, t int64, name string, evmChainID uint64) *Subnet {
	s := &Subnet{CreateTime: t, Owner: w.ewoqOwner()}
	s.ID = p.add(&PTx{Kind: "CreateSubnetTx", Time: s.CreateTime, subnet: s, onBlock: func(h uint64) { s.CreateBlock = h }}).ID
	c := &Blockchain{SubnetID: s.ID, Name: name, VMID: SubnetEVMID, EVMChainID: evmChainID, CreateTime: s.CreateTime + hour}
	c.Genesis = evmGenesis(c.EVMChainID, c.CreateTime, ewoqEVM)
	c.ID = p.add(&PTx{Kind: "CreateChainTx", Time: c.CreateTime, chain: c, onBlock: func(h uint64) { c.CreateBlock = h }}).ID
	s.Chains = []*Blockchain{c}
	return s
}

// scheduleLegacySubnet schedules the legacy subnet, its chain and its
// permissioned validators: active, completed, and one removed.
func (w *World) scheduleLegacySubnet(p *schedule) *Subnet {
	s1 := w.subnetWithChain(p, w.genesis+5*day, "devsubnet", 787878)
	sub := func(nd *node, start, end int64) *Validation {
		v := &Validation{NodeID: nd.id, SubnetID: s1.ID, Weight: 20, Start: start, End: end,
			Uptime: 99.5, Version: nd.version, Geo: nd.geo}
		v.TxID = p.add(&PTx{Kind: "AddSubnetValidatorTx", Time: start, validation: v, subnet: s1}).ID
		w.validations = append(w.validations, v)
		return v
	}
	S, now := s1.CreateTime, w.now
	sub(w.nodes[0], S+2*hour, now+30*day)
	sub(w.nodes[2], S+2*hour, S+5*day)
	sub(w.nodes[2], S+6*day, now+30*day)
	removed := sub(w.nodes[1], S+3*hour, now+30*day)
	removed.removed = true
	removed.RemoveTime = S + 2*day
	removed.RemoveTxID = p.add(&PTx{Kind: "RemoveSubnetValidatorTx", Time: removed.RemoveTime, validation: removed, subnet: s1}).ID
	return s1
}

// scheduleConversion schedules the ConvertSubnetToL1Tx of s2, whose
// validators are nodes.
func (w *World) scheduleConversion(p *schedule, s2 *Subnet, nodes []*node) *L1Conversion {
	conv := &L1Conversion{SubnetID: s2.ID, ChainID: s2.Chains[0].ID, Address: ValidatorManagerAddress, Time: w.genesis + 9*day}
	for i, nd := range nodes {
		conv.Validators = append(conv.Validators, L1Validator{
			NodeID: nd.id, Weight: 100, Balance: (1 + uint64(i)) * nAVAX, BLS: nd.bls,
			RemainingBalanceOwner: w.ewoqOwner(), DeactivationOwner: w.ewoqOwner(),
		})
	}
	slices.SortFunc(conv.Validators, func(a, b L1Validator) int { return bytes.Compare(a.NodeID[:], b.NodeID[:]) })
	conv.ConversionData = conversionData(conv)
	conv.ConversionID = avax.Hash256(conv.ConversionData)
	conv.TxID = p.add(&PTx{Kind: "ConvertSubnetToL1Tx", Time: conv.Time, conversion: conv, onBlock: func(h uint64) {
		conv.Height = h
		for _, v := range conv.Validators {
			w.l1Changes = append(w.l1Changes, SetChange{Height: h, NodeID: v.NodeID, Weight: int64(v.Weight), PublicKey: v.BLS.PublicKey})
		}
	}}).ID
	s2.Conversion = conv
	w.conversion = conv
	return conv
}

// scheduleL1Changes changes the L1's validators: the first converted one's
// balance grows, the registered one's weight rises to 80, the second
// converted one is disabled (inactive: it keeps its weight, and its balance
// is returned).
func (w *World) scheduleL1Changes(p *schedule, s2 *Subnet, conv *L1Conversion, reg *L1Registration) {
	G := w.genesis
	a, b := conv.Validators[0], conv.Validators[1]
	changes := []*L1Change{
		{Kind: "IncreaseL1ValidatorBalanceTx", ValidationID: s2.ID.Append(0), NodeID: a.NodeID, Balance: nAVAX, Time: G + 11*day},
		{Kind: "SetL1ValidatorWeightTx", ValidationID: reg.ValidationID(), NodeID: reg.NodeID, Nonce: 1, Weight: 80, Time: G + 12*day},
		{Kind: "DisableL1ValidatorTx", ValidationID: s2.ID.Append(1), NodeID: b.NodeID, Time: G + 13*day},
	}
	for _, c := range changes {
		c.TxID = p.add(&PTx{Kind: c.Kind, Time: c.Time, l1: c, onBlock: func(h uint64) {
			c.Height = h
			if c.Kind == "SetL1ValidatorWeightTx" {
				w.l1Changes = append(w.l1Changes, SetChange{Height: h, NodeID: c.NodeID, Weight: int64(c.Weight) - int64(reg.Weight), PublicKey: reg.BLS.PublicKey})
			}
		}}).ID
	}
	w.l1Ops = changes
}

// conversionData returns the codec bytes of avalanchego's
// SubnetToL1ConversionData of c (warpmsg.ConversionData).
func conversionData(c *L1Conversion) []byte {
	d := warpmsg.ConversionData{SubnetID: c.SubnetID, ManagerChainID: c.ChainID, ManagerAddress: c.Address}
	for _, v := range c.Validators {
		cv := warpmsg.ConversionValidator{NodeID: v.NodeID[:], Weight: v.Weight}
		copy(cv.BLSPublicKey[:], v.BLS.PublicKey)
		d.Validators = append(d.Validators, cv)
	}
	return d.Bytes()
}

// Subnets returns the subnets, by creation time. The slice is shared: do not
// modify it.
func (w *World) Subnets() []*Subnet { return w.subnets }

// Subnet returns the subnet with id.
func (w *World) Subnet(id avax.ID) (*Subnet, bool) {
	for _, s := range w.subnets {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}

// L1Conversion returns the ConvertSubnetToL1Tx with the given transaction
// hash.
func (w *World) L1Conversion(txID avax.ID) (*L1Conversion, bool) {
	if w.conversion != nil && w.conversion.TxID == txID {
		return w.conversion, true
	}
	return nil, false
}

// L1ConversionOfSubnet returns the conversion of an L1 by its subnet id (the
// justification of a SubnetToL1Conversion message).
func (w *World) L1ConversionOfSubnet(subnetID avax.ID) (*L1Conversion, bool) {
	if w.conversion != nil && w.conversion.SubnetID == subnetID {
		return w.conversion, true
	}
	return nil, false
}

// L1Registration returns the RegisterL1ValidatorTx with the given hash.
func (w *World) L1Registration(txID avax.ID) (*L1Registration, bool) {
	for _, r := range w.registers {
		if r.TxID == txID {
			return r, true
		}
	}
	return nil, false
}

// L1Registrations returns every RegisterL1ValidatorTx.
func (w *World) L1Registrations() []*L1Registration { return w.registers }

// L1Changes returns the changes of L1 validators after their registration,
// in time order.
func (w *World) L1Changes() []*L1Change { return w.l1Ops }

// Message returns the RegisterL1Validator Warp message the registration
// carries.
func (r *L1Registration) Message() *warpmsg.RegisterL1Validator {
	m := &warpmsg.RegisterL1Validator{
		SubnetID:              [32]byte(r.SubnetID),
		NodeID:                r.NodeID[:],
		Expiry:                r.Expiry,
		RemainingBalanceOwner: warpOwner(r.RemainingBalanceOwner),
		DisableOwner:          warpOwner(r.DisableOwner),
		Weight:                r.Weight,
	}
	copy(m.BLSPublicKey[:], r.BLS.PublicKey)
	return m
}

func warpOwner(o Owner) warpmsg.PChainOwner {
	out := warpmsg.PChainOwner{Threshold: o.Threshold}
	for _, a := range o.Addresses {
		out.Addresses = append(out.Addresses, [20]byte(a))
	}
	return out
}
