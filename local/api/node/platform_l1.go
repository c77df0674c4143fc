package node

import (
	"context"
	"fmt"

	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/vocab/avax"
	"github.com/avaedge/avaedge/local/vocab/warpmsg"
)

// l1Conversion returns an L1's conversion data, read back from the node's
// JSON of the ConvertSubnetToL1Tx the index holds: the node keeps the
// sha256 of its bytes as the conversion id, which nothing else records.
func (p platform) l1Conversion(ctx context.Context, c *pindex.Conversion) (*warpmsg.ConversionData, error) {
	t, ok, err := p.ix.Tx(ctx, c.TxID)
	if err != nil {
		return nil, fmt.Errorf("conversion tx %s: %w", c.TxID, err)
	}
	if !ok {
		return nil, fmt.Errorf("conversion tx %s: not in the index", c.TxID)
	}
	d, err := warpmsg.ConversionOfTx(t.Body)
	if err != nil {
		return nil, fmt.Errorf("conversion tx %s: %w", c.TxID, err)
	}
	return d, nil
}

// getL1 is platformvm's GetSubnet of an L1: its owner, and the conversion
// id, manager chain and address of its ConvertSubnetToL1Tx; not
// permissioned any more.
func (p platform) getL1(ctx context.Context, s *pindex.Subnet) (*getSubnetReply, error) {
	d, err := p.l1Conversion(ctx, s.Conversion)
	if err != nil {
		return nil, err
	}
	a := p.apiSubnet(s)
	addr := avax.EncodeHexNC(d.ManagerAddress)
	return &getSubnetReply{IsPermissioned: false, ControlKeys: a.ControlKeys, Threshold: a.Threshold, Locktime: uint64s(s.Owner.Locktime),
		SubnetTransformationTxID: avax.EmptyID.String(), ConversionID: avax.ID(d.ID()).String(),
		ManagerChainID: avax.ID(d.ManagerChainID).String(), ManagerAddress: &addr}, nil
}
