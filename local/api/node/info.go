package node

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/avaedge/avaedge/avanet"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

// Node software facts reported by getNodeVersion (avalanchego v1.14.2
// version/constants.go).
const (
	defaultVersion     = "avalanchego/1.14.2"
	databaseVersion    = "v1.4.5"
	rpcProtocolVersion = 45
	// gitCommit identifies the local world's build of the node; the devnet
	// has no real commit, so this is sha1("avaedge local node").
	gitCommit = "41a1e0b2e1eaf1271d82d50b7737c189d497ef2c"
	// uptimeRequirement is the primary network's uptime requirement.
	uptimeRequirement = 0.8
)

var (
	errNoChain      = errors.New("argument 'chain' not given")
	errNotValidator = errors.New("node is not a validator")
)

// Well-known VM ids (avanet) and Fx ids: their names as 32 zero-padded
// bytes (avalanchego utils/constants and the fx factories).
var (
	platformVMID  = avax.MustParseID(avanet.PlatformVMID)
	avmID         = avax.MustParseID(avanet.AVMID)
	evmID         = avax.MustParseID(avanet.EVMID)
	subnetEVMID   = avax.MustParseID(avanet.SubnetEVMID)
	secp256k1fxID = nameID("secp256k1fx")
	nftfxID       = nameID("nftfx")
	propertyfxID  = nameID("propertyfx")
)

func nameID(name string) avax.ID {
	var id avax.ID
	copy(id[:], name)
	return id
}

type getNodeVersionReply struct {
	Version            string            `json:"version"`
	DatabaseVersion    string            `json:"databaseVersion"`
	RPCProtocolVersion uint32s           `json:"rpcProtocolVersion"`
	GitCommit          string            `json:"gitCommit"`
	VMVersions         map[string]string `json:"vmVersions"`
}

func (s *service) getNodeVersion(context.Context, *noArgs) (*getNodeVersionReply, error) {
	v := s.w.Node.Version
	if v == "" {
		v = defaultVersion
	}
	// The built-in VMs carry the node's own version ("avalanchego/1.14.2"
	// runs avm v1.14.2); Subnet-EVM is built from the same tree.
	vm := "v" + strings.TrimPrefix(v, "avalanchego/")
	return &getNodeVersionReply{
		Version:            v,
		DatabaseVersion:    databaseVersion,
		RPCProtocolVersion: rpcProtocolVersion,
		GitCommit:          gitCommit,
		VMVersions:         map[string]string{"avm": vm, "evm": vm, "platform": vm, "subnet-evm": vm},
	}, nil
}

type proofOfPossession struct {
	PublicKey         string `json:"publicKey"`
	ProofOfPossession string `json:"proofOfPossession"`
}

type getNodeIDReply struct {
	NodeID  string             `json:"nodeID"`
	NodePOP *proofOfPossession `json:"nodePOP"`
}

func (s *service) getNodeID(context.Context, *noArgs) (*getNodeIDReply, error) {
	n := &s.w.Node
	r := &getNodeIDReply{NodeID: n.ID.String()}
	if len(n.PublicKey) > 0 {
		r.NodePOP = &proofOfPossession{
			PublicKey:         avax.EncodeHexNC(n.PublicKey),
			ProofOfPossession: avax.EncodeHexNC(n.ProofOfPossession),
		}
	}
	return r, nil
}

type getNodeIPReply struct {
	IP netip.AddrPort `json:"ip"`
}

func (s *service) getNodeIP(context.Context, *noArgs) (*getNodeIPReply, error) {
	return &getNodeIPReply{IP: s.w.Node.IP}, nil
}

type getNetworkIDReply struct {
	NetworkID uint32s `json:"networkID"`
}

func (s *service) getNetworkID(context.Context, *noArgs) (*getNetworkIDReply, error) {
	return &getNetworkIDReply{NetworkID: uint32s(s.w.NetworkID)}, nil
}

type getNetworkNameReply struct {
	NetworkName string `json:"networkName"`
}

func (s *service) getNetworkName(context.Context, *noArgs) (*getNetworkNameReply, error) {
	return &getNetworkNameReply{NetworkName: avanet.Name(s.w.NetworkID)}, nil
}

type getBlockchainIDArgs struct {
	Alias string `json:"alias"`
}

type getBlockchainIDReply struct {
	BlockchainID string `json:"blockchainID"`
}

func (s *service) getBlockchainID(_ context.Context, args *getBlockchainIDArgs) (*getBlockchainIDReply, error) {
	id, err := s.lookupChain(args.Alias)
	if err != nil {
		return nil, err
	}
	return &getBlockchainIDReply{BlockchainID: id.String()}, nil
}

type isBootstrappedArgs struct {
	Chain string `json:"chain"`
}

type isBootstrappedReply struct {
	IsBootstrapped bool `json:"isBootstrapped"`
}

// isBootstrapped answers true for every chain the node runs: the local
// world is always in sync.
func (s *service) isBootstrapped(_ context.Context, args *isBootstrappedArgs) (*isBootstrappedReply, error) {
	if args.Chain == "" {
		return nil, errNoChain
	}
	if _, err := s.lookupChain(args.Chain); err != nil {
		return nil, fmt.Errorf("there is no chain with alias/ID '%s'", args.Chain)
	}
	return &isBootstrappedReply{IsBootstrapped: true}, nil
}

type peersArgs struct {
	NodeIDs []jsonNodeID `json:"nodeIDs"`
}

type peerInfo struct {
	IP             netip.AddrPort `json:"ip"`
	PublicIP       netip.AddrPort `json:"publicIP,omitempty"`
	NodeID         string         `json:"nodeID"`
	Version        string         `json:"version"`
	UpgradeTime    uint64         `json:"upgradeTime"`
	LastSent       time.Time      `json:"lastSent"`
	LastReceived   time.Time      `json:"lastReceived"`
	ObservedUptime uint32s        `json:"observedUptime"`
	TrackedSubnets []string       `json:"trackedSubnets"`
	SupportedACPs  []uint32       `json:"supportedACPs"`
	ObjectedACPs   []uint32       `json:"objectedACPs"`
	Benched        []string       `json:"benched"`
}

type peersReply struct {
	NumPeers uint64s    `json:"numPeers"`
	Peers    []peerInfo `json:"peers"`
}

// peers describes every peer, or those of args.NodeIDs that are connected,
// in the order asked (network.PeerInfo).
func (s *service) peers(_ context.Context, args *peersArgs) (*peersReply, error) {
	var list []*Peer
	if len(args.NodeIDs) == 0 {
		for i := range s.w.Peers {
			list = append(list, &s.w.Peers[i])
		}
	} else {
		for _, id := range args.NodeIDs {
			// Like the node, a repeated id is described repeatedly.
			i := slices.IndexFunc(s.w.Peers, func(p Peer) bool { return p.NodeID == avax.NodeID(id) })
			if i >= 0 {
				list = append(list, &s.w.Peers[i])
			}
		}
	}
	r := &peersReply{NumPeers: uint64s(len(list)), Peers: make([]peerInfo, len(list))}
	upgrade := uint64(s.upgrades.HeliconTime.Unix())
	for i, p := range list {
		tracked := make([]string, len(p.TrackedSubnets))
		for j, id := range p.TrackedSubnets {
			tracked[j] = id.String()
		}
		slices.Sort(tracked)
		r.Peers[i] = peerInfo{
			IP: p.IP, PublicIP: p.IP, NodeID: p.NodeID.String(), Version: p.Version, UpgradeTime: upgrade,
			LastSent: p.LastSent.UTC(), LastReceived: p.LastReceived.UTC(), ObservedUptime: uint32s(p.ObservedUptime),
			TrackedSubnets: tracked,
			SupportedACPs:  sortedACPs(p.SupportedACPs),
			ObjectedACPs:   sortedACPs(p.ObjectedACPs),
			Benched:        []string{},
		}
	}
	return r, nil
}

func sortedACPs(acps []uint32) []uint32 {
	out := slices.Clone(acps)
	if out == nil {
		out = []uint32{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

type uptimeArgs struct {
	SubnetID jsonID `json:"subnetID"`
}

type uptimeReply struct {
	RewardingStakePercentage  float64s `json:"rewardingStakePercentage"`
	WeightedAveragePercentage float64s `json:"weightedAveragePercentage"`
}

// uptime computes what avalanchego's network.NodeUptime does: the node's
// own stake counts as seeing it 100% up, each peer's stake as seeing the
// uptime it reports; the rewarding stake is the part that sees at least the
// uptime requirement. The subnet is the primary network unless args names
// one.
func (s *service) uptime(_ context.Context, args *uptimeArgs) (*uptimeReply, error) {
	subnet := avax.ID(args.SubnetID)
	own := s.w.Node.Weights[subnet]
	if own == 0 {
		return nil, fmt.Errorf("couldn't get node uptime: %w", errNotValidator)
	}
	total := float64(own)
	weighted := 100 * float64(own)
	rewarding := float64(own)
	for _, p := range s.w.Peers {
		wt := float64(p.Weights[subnet])
		if wt == 0 {
			continue
		}
		total += wt
		weighted += wt * float64(p.ObservedUptime)
		if float64(p.ObservedUptime)/100 >= uptimeRequirement {
			rewarding += wt
		}
	}
	return &uptimeReply{
		RewardingStakePercentage:  float64s(100 * rewarding / total),
		WeightedAveragePercentage: float64s(weighted / total),
	}, nil
}

type acp struct {
	SupportWeight uint64s  `json:"supportWeight"`
	Supporters    []string `json:"supporters"`
	ObjectWeight  uint64s  `json:"objectWeight"`
	Objectors     []string `json:"objectors"`
	AbstainWeight uint64s  `json:"abstainWeight"`
}

type acpsReply struct {
	ACPs map[uint32]*acp `json:"acps"`
}

// acps tallies the peers' votes weighted by their primary-network stake, as
// avalanchego v1.14.2 does. Its set of current ACPs (whose abstain weight it
// computes) is empty, so abstainWeight is 0.
func (s *service) acps(context.Context, *noArgs) (*acpsReply, error) {
	r := &acpsReply{ACPs: map[uint32]*acp{}}
	get := func(n uint32) *acp {
		a, ok := r.ACPs[n]
		if !ok {
			a = &acp{Supporters: []string{}, Objectors: []string{}}
			r.ACPs[n] = a
		}
		return a
	}
	for _, p := range s.w.Peers {
		wt := p.Weights[avax.EmptyID]
		if wt == 0 {
			continue
		}
		for _, n := range sortedACPs(p.SupportedACPs) {
			a := get(n)
			a.Supporters = append(a.Supporters, p.NodeID.String())
			a.SupportWeight += uint64s(wt)
		}
		for _, n := range sortedACPs(p.ObjectedACPs) {
			a := get(n)
			a.Objectors = append(a.Objectors, p.NodeID.String())
			a.ObjectWeight += uint64s(wt)
		}
	}
	for _, a := range r.ACPs {
		slices.Sort(a.Supporters)
		slices.Sort(a.Objectors)
	}
	return r, nil
}

type infoTxFeeReply struct {
	TxFee                         uint64s `json:"txFee"`
	CreateAssetTxFee              uint64s `json:"createAssetTxFee"`
	CreateSubnetTxFee             uint64s `json:"createSubnetTxFee"`
	TransformSubnetTxFee          uint64s `json:"transformSubnetTxFee"`
	CreateBlockchainTxFee         uint64s `json:"createBlockchainTxFee"`
	AddPrimaryNetworkValidatorFee uint64s `json:"addPrimaryNetworkValidatorFee"`
	AddPrimaryNetworkDelegatorFee uint64s `json:"addPrimaryNetworkDelegatorFee"`
	AddSubnetValidatorFee         uint64s `json:"addSubnetValidatorFee"`
	AddSubnetDelegatorFee         uint64s `json:"addSubnetDelegatorFee"`
}

const (
	milliAVAX = 1_000_000
	avaxUnit  = 1_000 * milliAVAX
)

// txFees returns the X-Chain's txFee and createAssetTxFee of a network
// (avalanchego genesis params).
func txFees(networkID uint32) (txFee, createAssetTxFee uint64) {
	switch networkID {
	case avanet.Mainnet.ID, avanet.Fuji.ID:
		return milliAVAX, 10 * milliAVAX
	}
	return milliAVAX, milliAVAX
}

func (s *service) getInfoTxFee(context.Context, *noArgs) (*infoTxFeeReply, error) {
	r := &infoTxFeeReply{
		CreateSubnetTxFee:     100 * milliAVAX,
		TransformSubnetTxFee:  100 * milliAVAX,
		CreateBlockchainTxFee: 100 * milliAVAX,
		AddSubnetValidatorFee: milliAVAX,
		AddSubnetDelegatorFee: milliAVAX,
	}
	switch s.w.NetworkID {
	case avanet.Mainnet.ID:
		r.CreateSubnetTxFee, r.TransformSubnetTxFee, r.CreateBlockchainTxFee = avaxUnit, 10*avaxUnit, avaxUnit
	case avanet.Fuji.ID:
		r.TransformSubnetTxFee = avaxUnit
	}
	tx, asset := txFees(s.w.NetworkID)
	r.TxFee, r.CreateAssetTxFee = uint64s(tx), uint64s(asset)
	return r, nil
}

type getVMsReply struct {
	VMs map[string][]string `json:"vms"`
	Fxs map[string]string   `json:"fxs"`
}

func (s *service) getVMs(context.Context, *noArgs) (*getVMsReply, error) {
	vms := map[avax.ID][]string{
		platformVMID: {"platform"},
		avmID:        {"avm"},
		evmID:        {"evm"},
		subnetEVMID:  {"subnet-evm"},
	}
	r := &getVMsReply{VMs: map[string][]string{}, Fxs: map[string]string{
		secp256k1fxID.String(): "secp256k1fx",
		nftfxID.String():       "nftfx",
		propertyfxID.String():  "propertyfx",
	}}
	for id, names := range vms {
		r.VMs[id.String()] = names
	}
	return r, nil
}
