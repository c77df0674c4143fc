package nodeclient

import (
	"context"
)

// AVM is the X-Chain's API (avm.*). Its methods are safe for concurrent
// use.
type AVM struct{ chain }

// AssetDescription is an asset as avm.getAssetDescription describes it.
type AssetDescription struct {
	ID, Name, Symbol string
}

// AssetDescription describes the asset with id or alias ("AVAX")
// (avm.getAssetDescription).
func (x AVM) AssetDescription(ctx context.Context, asset string) (AssetDescription, error) {
	var r struct {
		AssetID string `json:"assetID"`
		Name    string `json:"name"`
		Symbol  string `json:"symbol"`
	}
	if err := x.rpc.Call(ctx, x.path, "avm.getAssetDescription", map[string]string{"assetID": asset}, &r); err != nil {
		return AssetDescription{}, err
	}
	return AssetDescription{ID: r.AssetID, Name: r.Name, Symbol: r.Symbol}, nil
}
