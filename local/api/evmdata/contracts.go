package evmdata

import (
	"github.com/avaedge/avaedge/local/api/apireq"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/ethereum/go-ethereum/common"
)

// contractJSON is Erc20Contract, Erc721Contract, Erc1155Contract and
// UnknownContract: what the index knows of a contract. The profile fields
// (description, logo, links, ...) come from a registry the local world does
// not have and are left out.
type contractJSON struct {
	Address           string          `json:"address"`
	ErcType           string          `json:"ercType"`
	Name              string          `json:"name,omitempty"`
	Symbol            string          `json:"symbol,omitempty"`
	Decimals          *int            `json:"decimals,omitempty"` // ERC-20 only, where it is required
	DeploymentDetails *deploymentJSON `json:"deploymentDetails,omitempty"`
}

// deploymentJSON is ContractDeploymentDetails.
type deploymentJSON struct {
	TxHash          string `json:"txHash"`
	DeployerAddress string `json:"deployerAddress"`
	// DeployerContractAddress is the factory that ran CREATE or CREATE2.
	DeployerContractAddress string `json:"deployerContractAddress,omitempty"`
}

// describeContract builds a contract's metadata from its token row (tok,
// ok) and its deployment (nil when the index did not see it).
func describeContract(a common.Address, tok evmindex.Token, isToken bool, dep *evmindex.Deployment) contractJSON {
	out := contractJSON{Address: a.Hex(), ErcType: "UNKNOWN"}
	if isToken {
		out.ErcType, out.Name, out.Symbol = tok.Kind.String(), tok.Name, tok.Symbol
		if tok.Kind == evmindex.ERC20 {
			d := int(tok.Decimals)
			out.Decimals = &d
		}
	}
	if dep != nil {
		out.DeploymentDetails = &deploymentJSON{TxHash: dep.TxHash.Hex(), DeployerAddress: dep.Origin.Hex()}
		if dep.Deployer != dep.Origin {
			out.DeploymentDetails.DeployerContractAddress = dep.Deployer.Hex()
		}
	}
	return out
}

// getContractMetadata answers GET /v1/chains/{chainId}/addresses/{address}:
// the contract's standard, name, symbol and decimals as read from it, and
// its deployment as indexed. An address the index knows neither as a token
// nor as a deployed contract is 404.
func (s *server) getContractMetadata(r *req) (any, error) {
	c, addr, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	toks, err := s.ix.Tokens(ctx, c.ChainID, []common.Address{addr})
	if err != nil {
		return nil, err
	}
	var dep *evmindex.Deployment
	switch d, err := s.ix.Deployment(ctx, c.ChainID, addr); {
	case err == nil:
		dep = &d
	case err != evmindex.ErrNotFound:
		return nil, err
	}
	tok, isToken := toks[addr]
	if !isToken && dep == nil {
		return nil, apireq.NotFound("No contract known at " + addr.Hex())
	}
	return describeContract(addr, tok, isToken, dep), nil
}

// listContractDeployments answers GET
// /v1/chains/{chainId}/contracts/{address}/deployments: the contracts the
// address deployed, newest first: created by transactions it sent, directly
// or through a factory, and created by it as a factory.
func (s *server) listContractDeployments(r *req) (any, error) {
	c, addr, err := s.chainAddress(r)
	if err != nil {
		return nil, err
	}
	size, _ := pageSize(r, 10)
	sc := scope(r)
	before, err := s.cursor(r, sc)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	ds, err := s.ix.Deployments(ctx, c.ChainID, addr, int64(before), size+1)
	if err != nil {
		return nil, err
	}
	out := struct {
		NextPageToken string         `json:"nextPageToken,omitempty"`
		Contracts     []contractJSON `json:"contracts"`
	}{Contracts: make([]contractJSON, 0, len(ds))}
	if len(ds) > size {
		ds = ds[:size]
		out.NextPageToken = s.token(sc, uint64(ds[size-1].Seq))
	}
	addrs := make([]common.Address, len(ds))
	for i, d := range ds {
		addrs[i] = d.Address
	}
	toks, err := s.ix.Tokens(ctx, c.ChainID, addrs)
	if err != nil {
		return nil, err
	}
	for i := range ds {
		tok, isToken := toks[ds[i].Address]
		out.Contracts = append(out.Contracts, describeContract(ds[i].Address, tok, isToken, &ds[i]))
	}
	return out, nil
}
