package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/avaedge/avaedge/jsonrpc"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
)

var (
	errPrimaryNotSubnet    = errors.New("the primary network isn't a subnet")
	errMissingBlockchainID = errors.New("argument 'blockchainID' not given")
)

type apiSubnet struct {
	ID          string   `json:"id"`
	ControlKeys []string `json:"controlKeys"`
	Threshold   uint32s  `json:"threshold"`
}

type getSubnetsArgs struct {
	IDs []jsonID `json:"ids"`
}

type getSubnetsReply struct {
	Subnets []apiSubnet `json:"subnets"`
}

// subnets returns the index's subnets in the node's order: newest first,
// the order of its subnet list (a linked list each new subnet heads).
// A running node that read the list before it accepted newer subnets lists
// those after the others, oldest first, until it restarts: only a
// restarted node's order is the index's.
func (p platform) subnets(ctx context.Context) ([]*pindex.Subnet, error) {
	ss, err := p.ix.Subnets(ctx)
	if err != nil {
		return nil, fmt.Errorf("error getting subnets from database: %w", err)
	}
	ss = slices.Clone(ss)
	slices.Reverse(ss)
	return ss, nil
}

func (p platform) apiSubnet(s *pindex.Subnet) apiSubnet {
	keys := make([]string, len(s.Owner.Addresses))
	for i, a := range s.Owner.Addresses {
		keys[i] = p.s.formatAddress(a)
	}
	return apiSubnet{ID: s.ID, ControlKeys: keys, Threshold: uint32s(s.Owner.Threshold)}
}

// getSubnets is platformvm's GetSubnets: every subnet and then the primary
// network, or those of ids (in their order, each once) that exist.
func (p platform) getSubnets(ctx context.Context, args *getSubnetsArgs) (*getSubnetsReply, error) {
	ss, err := p.subnets(ctx)
	if err != nil {
		return nil, err
	}
	primary := apiSubnet{ID: avax.EmptyID.String(), ControlKeys: []string{}}
	r := &getSubnetsReply{}
	if len(args.IDs) == 0 {
		r.Subnets = make([]apiSubnet, 0, len(ss)+1)
		for _, s := range ss {
			r.Subnets = append(r.Subnets, p.apiSubnet(s))
		}
		r.Subnets = append(r.Subnets, primary)
		return r, nil
	}
	var seen []jsonID
	for _, id := range args.IDs {
		if slices.Contains(seen, id) {
			continue
		}
		seen = append(seen, id)
		if avax.ID(id).IsEmpty() {
			r.Subnets = append(r.Subnets, primary)
			continue
		}
		if i := slices.IndexFunc(ss, func(s *pindex.Subnet) bool { return s.ID == avax.ID(id).String() }); i >= 0 {
			r.Subnets = append(r.Subnets, p.apiSubnet(ss[i]))
		}
	}
	return r, nil
}

type getSubnetReply struct {
	IsPermissioned           bool     `json:"isPermissioned"`
	ControlKeys              []string `json:"controlKeys"`
	Threshold                uint32s  `json:"threshold"`
	Locktime                 uint64s  `json:"locktime"`
	SubnetTransformationTxID string   `json:"subnetTransformationTxID"`
	ConversionID             string   `json:"conversionID"`
	ManagerChainID           string   `json:"managerChainID"`
	ManagerAddress           *string  `json:"managerAddress"`
}

// getSubnet is platformvm's GetSubnet: a permissioned subnet's owner, or an
// L1's with its conversion (getL1).
func (p platform) getSubnet(ctx context.Context, args *subnetArgs) (*getSubnetReply, error) {
	id := avax.ID(args.SubnetID)
	if id.IsEmpty() {
		return nil, errPrimaryNotSubnet
	}
	s, ok, err := p.ix.Subnet(ctx, id.String())
	if err != nil {
		return nil, fmt.Errorf("subnet %s: %w", id, err)
	}
	if !ok {
		return nil, errors.New("not found")
	}
	if s.Conversion != nil {
		return p.getL1(ctx, s)
	}
	a := p.apiSubnet(s)
	empty := avax.EmptyID.String()
	return &getSubnetReply{IsPermissioned: true, ControlKeys: a.ControlKeys, Threshold: a.Threshold, Locktime: uint64s(s.Owner.Locktime),
		SubnetTransformationTxID: empty, ConversionID: empty, ManagerChainID: empty}, nil
}

type apiBlockchain struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	SubnetID string `json:"subnetID"`
	VMID     string `json:"vmID"`
}

type getBlockchainsReply struct {
	Blockchains []apiBlockchain `json:"blockchains"`
}

// chainsOf returns subnet's chains of all (oldest first) in the node's
// order: newest first, as its per-subnet chain lists hold them (with the
// caveat of subnets).
func chainsOf(all []pindex.Blockchain, subnet string) []pindex.Blockchain {
	var out []pindex.Blockchain
	for _, b := range slices.Backward(all) {
		if b.SubnetID == subnet {
			out = append(out, b)
		}
	}
	return out
}

// getBlockchains is platformvm's GetBlockchains: each subnet's chains, in
// subnet order, then the primary network's.
func (p platform) getBlockchains(ctx context.Context, _ *noArgs) (*getBlockchainsReply, error) {
	ss, err := p.subnets(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't retrieve subnets: %w", err)
	}
	all, err := p.ix.Blockchains(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't retrieve chains: %w", err)
	}
	r := &getBlockchainsReply{Blockchains: []apiBlockchain{}}
	ids := make([]string, 0, len(ss)+1)
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	for _, s := range append(ids, avax.EmptyID.String()) {
		for _, b := range chainsOf(all, s) {
			r.Blockchains = append(r.Blockchains, apiBlockchain{ID: b.ID, Name: b.Name, SubnetID: s, VMID: b.VMID})
		}
	}
	return r, nil
}

type blockchainIDArgs struct {
	BlockchainID jsonID `json:"blockchainID"`
}

type validatedByReply struct {
	SubnetID string `json:"subnetID"`
}

// validatedBy is platformvm's ValidatedBy: the subnet of a chain the
// index holds (the P-Chain's is the primary network).
func (p platform) validatedBy(ctx context.Context, args *blockchainIDArgs) (*validatedByReply, error) {
	id := avax.ID(args.BlockchainID)
	if id.IsEmpty() {
		return &validatedByReply{SubnetID: avax.EmptyID.String()}, nil
	}
	b, ok, err := p.ix.Blockchain(ctx, id.String())
	if err != nil {
		return nil, fmt.Errorf("problem retrieving blockchain %q: %w", id, err)
	}
	if !ok {
		if _, isTx, _ := p.ix.Tx(ctx, id.String()); isTx {
			return nil, fmt.Errorf("%q is not a blockchain", id)
		}
		return nil, fmt.Errorf("problem retrieving blockchain %q: not found", id)
	}
	return &validatedByReply{SubnetID: b.SubnetID}, nil
}

type validatesReply struct {
	BlockchainIDs []string `json:"blockchainIDs"`
}

// validates is platformvm's Validates: the chains of a subnet, by id bytes.
func (p platform) validates(ctx context.Context, args *subnetArgs) (*validatesReply, error) {
	id := avax.ID(args.SubnetID)
	if !id.IsEmpty() {
		if _, ok, err := p.ix.Subnet(ctx, id.String()); err != nil || !ok {
			if _, isTx, _ := p.ix.Tx(ctx, id.String()); isTx && err == nil {
				return nil, fmt.Errorf("%q is not a subnet", id)
			}
			return nil, fmt.Errorf("problem retrieving subnet %q: not found", id)
		}
	}
	all, err := p.ix.Blockchains(ctx)
	if err != nil {
		return nil, fmt.Errorf("problem retrieving chains for subnet %q: %w", id, err)
	}
	chains := chainsOf(all, id.String())
	r := &validatesReply{BlockchainIDs: make([]string, len(chains))}
	for i, b := range chains {
		r.BlockchainIDs[i] = b.ID
	}
	return r, nil
}

type getCurrentValidatorsArgs struct {
	SubnetID jsonID       `json:"subnetID"`
	NodeIDs  []jsonNodeID `json:"nodeIDs"`
}

// currentValidators returns the node's last kept getCurrentValidators
// answer for subnet, its validators each as the node printed it.
func (p platform) currentValidators(ctx context.Context, subnet avax.ID) ([]json.RawMessage, error) {
	body, _, ok, err := p.ix.CurrentValidators(ctx, subnet.String())
	if err != nil {
		return nil, fmt.Errorf("failed to get primary or subnet validators: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("the index keeps no current validators of subnet %s: only the node answers for it, and it does not answer", subnet)
	}
	var r struct {
		Validators []json.RawMessage `json:"validators"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the kept validators of subnet %s: %w", subnet, err)
	}
	return r.Validators, nil
}

// vdrFields are what getCurrentValidators reads of a kept validator.
type vdrFields struct {
	NodeID          string          `json:"nodeID"`
	Weight          uint64s         `json:"weight"`
	DelegatorCount  *uint64s        `json:"delegatorCount"`
	DelegatorWeight uint64s         `json:"delegatorWeight"`
	Delegators      json.RawMessage `json:"delegators"`
}

type getCurrentValidatorsReply struct {
	Validators []json.RawMessage `json:"validators"`
}

// getCurrentValidators answers the validators of the node's last answer
// the index keeps (read after each P-Chain block), those of nodeIDs only
// when given. Asked for one node, the node lists its delegators too: the
// kept answer has them when the node had none (an empty list) or listed
// them; otherwise only the node can.
func (p platform) getCurrentValidators(ctx context.Context, args *getCurrentValidatorsArgs) (any, error) {
	if len(args.NodeIDs) == 0 {
		// The kept answer as it is: a primary network of 1,000
		// validators is a megabyte, decoded for nothing otherwise.
		body, _, ok, err := p.ix.CurrentValidators(ctx, avax.ID(args.SubnetID).String())
		if err == nil && ok {
			return jsonrpc.Raw(body), nil
		}
	}
	vdrs, err := p.currentValidators(ctx, avax.ID(args.SubnetID))
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range args.NodeIDs {
		want[avax.NodeID(n).String()] = true
	}
	out := []json.RawMessage{}
	for _, v := range vdrs {
		var f vdrFields
		if err := json.Unmarshal(v, &f); err != nil || !want[f.NodeID] {
			continue
		}
		if len(want) == 1 && f.DelegatorCount != nil && f.Delegators == nil {
			if *f.DelegatorCount != 0 {
				return nil, fmt.Errorf("the delegators of %s are listed by the node only, which does not answer", f.NodeID)
			}
			v = append(bytes.TrimRight(slices.Clone(v), "} \n"), []byte(`,"delegators":[]}`)...)
		}
		out = append(out, v)
	}
	return &getCurrentValidatorsReply{Validators: out}, nil
}

type getTotalStakeReply struct {
	Stake  uint64s `json:"stake"`
	Weight uint64s `json:"weight"`
}

// getTotalStake is the subnet's total validator weight: its current
// validators' weights and their delegations'.
func (p platform) getTotalStake(ctx context.Context, args *subnetArgs) (*getTotalStakeReply, error) {
	vdrs, err := p.currentValidators(ctx, avax.ID(args.SubnetID))
	if err != nil {
		return nil, fmt.Errorf("couldn't get total weight: %w", err)
	}
	var total uint64s
	for _, v := range vdrs {
		var f vdrFields
		if err := json.Unmarshal(v, &f); err != nil {
			return nil, fmt.Errorf("couldn't get total weight: %w", err)
		}
		total = addSat(addSat(total, uint64(f.Weight)), uint64(f.DelegatorWeight))
	}
	return &getTotalStakeReply{Stake: total, Weight: total}, nil
}

type blockchainStatusArgs struct {
	BlockchainID string `json:"blockchainID"`
}

type blockchainStatusReply struct {
	Status string `json:"status"`
}

// getBlockchainStatus is platformvm's GetBlockchainStatus as the view's
// own node sees it (the devnet's node, which runs every chain): a chain it
// runs is Validating when the node validates the chain's subnet, else
// Syncing; a chain the index holds that it does not run is Created; any
// other Unknown. Only a view with a node of its own answers it.
func (p platform) getBlockchainStatus(ctx context.Context, args *blockchainStatusArgs) (*blockchainStatusReply, error) {
	if args.BlockchainID == "" {
		return nil, errMissingBlockchainID
	}
	if id, err := p.s.lookupChain(args.BlockchainID); err == nil {
		subnet := avax.EmptyID
		if b, ok, err := p.ix.Blockchain(ctx, id.String()); err == nil && ok {
			subnet, _ = avax.ParseID(b.SubnetID)
		}
		if p.s.w.Node.Weights[subnet] > 0 {
			return &blockchainStatusReply{Status: "Validating"}, nil
		}
		return &blockchainStatusReply{Status: "Syncing"}, nil
	}
	id, err := avax.ParseID(args.BlockchainID)
	if err != nil {
		return nil, fmt.Errorf("problem parsing blockchainID %q: %w", args.BlockchainID, err)
	}
	if _, ok, err := p.ix.Blockchain(ctx, id.String()); err != nil {
		return nil, fmt.Errorf("problem looking up blockchain: %w", err)
	} else if ok {
		return &blockchainStatusReply{Status: "Created"}, nil
	}
	return &blockchainStatusReply{Status: "Unknown"}, nil
}
