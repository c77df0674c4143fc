package primary

import (
	"context"
	"encoding/json"

	"github.com/avaedge/avaedge/jsonrpc"
)

// The devnet's P-Chain fee parameters: avalanchego's local network's
// (genesis/genesis_local.go, LocalParams), whatever network the devnet is
// presented as, since its fees are the local network's. The JSON is
// platformvm's gas.Config and fee.Config (plain numbers).

// feeConfig is gas.Config: the dynamic fee of P-Chain transactions.
type feeConfig struct {
	Weights                  [4]uint64 `json:"weights"` // bandwidth, reads, writes, compute
	MaxCapacity              uint64    `json:"maxCapacity"`
	MaxPerSecond             uint64    `json:"maxPerSecond"`
	TargetPerSecond          uint64    `json:"targetPerSecond"`
	MinPrice                 uint64    `json:"minPrice"`
	ExcessConversionConstant uint64    `json:"excessConversionConstant"`
}

// validatorFeeConfig is fee.Config: the continuous fee of L1 validators.
type validatorFeeConfig struct {
	Capacity                 uint64 `json:"capacity"`
	Target                   uint64 `json:"target"`
	MinPrice                 uint64 `json:"minPrice"`
	ExcessConversionConstant uint64 `json:"excessConversionConstant"`
}

var (
	localFeeConfig = feeConfig{Weights: [4]uint64{1, 1_000, 1_000, 4}, MaxCapacity: 1_000_000, MaxPerSecond: 100_000,
		TargetPerSecond: 50_000, MinPrice: 1, ExcessConversionConstant: 2_164_043}
	localValidatorFeeConfig = validatorFeeConfig{Capacity: 20_000, Target: 10_000, MinPrice: 1, ExcessConversionConstant: 865_617}
)

// feeMethods answers getFeeConfig and getValidatorFeeConfig with the
// devnet's parameters; both take no arguments.
func feeMethods() map[string]jsonrpc.Method {
	constant := func(v any) jsonrpc.Method {
		return func(context.Context, json.RawMessage) (any, error) { return v, nil }
	}
	return map[string]jsonrpc.Method{
		"platform.getFeeConfig":          constant(localFeeConfig),
		"platform.getValidatorFeeConfig": constant(localValidatorFeeConfig),
	}
}
