// Package avanet is the one table of Avalanche's network facts: for mainnet,
// fuji and avalanchego's local network, the network id, the names the node
// and the services use, the bech32 HRP of addresses, the P-, X- and C-Chain
// blockchain ids, the AVAX asset id and the C-Chain's EVM chain id
// (as avalanchego's utils/constants and genesis configs define them;
// test/avalanchego checks this table against those).
//
// It also names the primary network's chains (Chain, ResolveChain) and the
// VMs of its chains. The catalogue, the proxy and the local world read these
// facts here and nowhere else. The package imports nothing of avaedge, so any package may
// import it.
package avanet

import (
	"strconv"
	"strings"
)

// PChainID is the P-Chain's blockchain id on every network: the empty id.
const PChainID = "11111111111111111111111111111111LpoYY"

// FallbackHRP is the bech32 HRP of a network this table does not know.
const FallbackHRP = "custom"

// TestnetName is the Data API's other name for fuji, and the Metrics API's
// name of every network that is not mainnet.
const TestnetName = "testnet"

// The VM ids of the primary network's chains and of Subnet-EVM
// (avalanchego's utils/constants; Subnet-EVM's): each VM's name as 32
// zero-padded bytes, in cb58.
const (
	PlatformVMID = "rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT" // "platformvm"
	AVMID        = "jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq" // "avm"
	EVMID        = "mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6" // "evm"
	SubnetEVMID  = "srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy" // "subnetevm"
)

// Chain names one of the primary network's three chains as the node's
// aliases do: "P", "X" or "C".
type Chain string

// The primary network's chains.
const (
	ChainP Chain = "P"
	ChainX Chain = "X"
	ChainC Chain = "C"
)

// Alias returns the Data API's name of the chain: "p-chain", "x-chain" or
// "c-chain".
func (c Chain) Alias() string { return strings.ToLower(string(c)) + "-chain" }

// ResolveChain maps a chain reference onto a primary-network chain: the
// aliases P, X, C, platform, avm, evm, p-chain, x-chain and c-chain (any
// case), and the three chains' blockchain ids on every network of the table.
func ResolveChain(ref string) (Chain, bool) {
	switch strings.ToLower(ref) {
	case "p", "p-chain", "platform":
		return ChainP, true
	case "x", "x-chain", "avm":
		return ChainX, true
	case "c", "c-chain", "evm":
		return ChainC, true
	}
	for _, n := range All() {
		if c, ok := n.ChainOf(ref); ok {
			return c, true
		}
	}
	return "", false
}

// Network is one network's facts. Blockchain and asset ids are cb58, as the
// node and the services print them.
type Network struct {
	// ID is the network id (info.getNetworkID).
	ID uint32
	// Name is the node's name of the network (info.getNetworkName):
	// "mainnet", "fuji" or "local".
	Name string
	// HRP is the human-readable part of the network's bech32 addresses.
	HRP string
	// XChainID and CChainID are the X- and C-Chain's blockchain ids. The
	// P-Chain's is PChainID.
	XChainID, CChainID string
	// AVAXAssetID is the AVAX asset's id.
	AVAXAssetID string
	// EVMChainID is the C-Chain's EVM chain id (eth_chainId).
	EVMChainID uint64
}

// ChainID returns the blockchain id of chain c on the network: PChainID for
// the P-Chain.
func (n Network) ChainID(c Chain) string {
	switch c {
	case ChainX:
		return n.XChainID
	case ChainC:
		return n.CChainID
	}
	return PChainID
}

// ChainOf returns the chain whose blockchain id on the network is id.
func (n Network) ChainOf(id string) (Chain, bool) {
	switch {
	case id == "":
		return "", false
	case id == PChainID:
		return ChainP, true
	case id == n.XChainID:
		return ChainX, true
	case id == n.CChainID:
		return ChainC, true
	}
	return "", false
}

// The networks.
var (
	Mainnet = Network{ID: 1, Name: "mainnet", HRP: "avax",
		XChainID:    "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
		CChainID:    "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
		AVAXAssetID: "FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z",
		EVMChainID:  43114}
	Fuji = Network{ID: 5, Name: "fuji", HRP: "fuji",
		XChainID:    "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
		CChainID:    "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
		AVAXAssetID: "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK",
		EVMChainID:  43113}
	// Local is avalanchego's local network, which the devnet presents as its
	// own.
	Local = Network{ID: 12345, Name: "local", HRP: "local",
		XChainID:    "2eNy1mUFdmaxXNj1eQHUe7Np4gju9sJsEtWQ4MX3ToiNKuADed",
		CChainID:    "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC",
		AVAXAssetID: "2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe",
		EVMChainID:  43112}
)

// DataAPINames are the network names the Data API accepts (glacier.json's
// Network enum), "testnet" meaning fuji.
var DataAPINames = []string{Mainnet.Name, Fuji.Name, TestnetName}

// All returns the networks of the table: Mainnet, Fuji, Local.
func All() []Network { return []Network{Mainnet, Fuji, Local} }

// ByID returns the network with id.
func ByID(id uint32) (Network, bool) {
	for _, n := range All() {
		if n.ID == id {
			return n, true
		}
	}
	return Network{}, false
}

// ByName returns the network a name stands for: its Name, "testnet" for
// fuji, or avalanchego's "network-<id>". Case does not matter.
func ByName(name string) (Network, bool) {
	name = strings.ToLower(name)
	if name == TestnetName {
		return Fuji, true
	}
	if rest, ok := strings.CutPrefix(name, "network-"); ok {
		id, err := strconv.ParseUint(rest, 10, 32)
		if err != nil {
			return Network{}, false
		}
		return ByID(uint32(id))
	}
	for _, n := range All() {
		if n.Name == name {
			return n, true
		}
	}
	return Network{}, false
}

// HRP returns the bech32 HRP of network id's addresses: the table's, or
// FallbackHRP.
func HRP(id uint32) string {
	if n, ok := ByID(id); ok {
		return n.HRP
	}
	return FallbackHRP
}

// Name returns avalanchego's name of network id (constants.NetworkName): the
// table's, or "network-<id>".
func Name(id uint32) string {
	if n, ok := ByID(id); ok {
		return n.Name
	}
	return "network-" + strconv.FormatUint(uint64(id), 10)
}

// DataAPIName names network id as the Data API does: "mainnet" or "fuji";
// other networks have no Data API name ("").
func DataAPIName(id uint32) string {
	switch id {
	case Mainnet.ID, Fuji.ID:
		return Name(id)
	}
	return ""
}
