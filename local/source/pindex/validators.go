package pindex

import (
	"context"
	"errors"
	"time"

	"github.com/avaedge/avaedge/local/vocab/avax"
)

// What the index keeps so that the node's own JSON-RPC methods can be
// answered from it while the node is down (local/api/node.IndexMethods): the
// X-avanet.Chain's block and transaction bytes and JSON as the node encoded them,
// and the node's answers to the info methods that describe it.

// recordedMethods are the methods whose latest answers the index records.
// Their answers describe the node itself (its id, IP, version, VMs, upgrade
// schedule, ACP votes, fees, network name, and its configuration of the
// P-Chain: the primary network's minimum stakes and the dynamic fees'
// parameters), which nothing else in the index holds. Its peers, uptime
// and the fee state are not recorded: only the running node knows them.
var recordedMethods = []string{"info.acps", "info.getNodeID", "info.getNodeIP", "info.getNodeVersion", "info.getTxFee",
	"info.getVMs", "info.upgrades", "info.getNetworkName", "avm.getTxFee", "platform.getMinStake",
	"platform.getFeeConfig", "platform.getValidatorFeeConfig"}

// refreshValidators stores platform.getCurrentValidators for the primary
// network and every indexed subnet, and platform.getCurrentSupply, every
// ValidatorsInterval and whenever the index reaches the node's P-avanet.Chain tip
// with new blocks (new subnets, L1 conversions, stakes).
func (ix *Index) refreshValidators(ctx context.Context) {
	for ctx.Err() == nil {
		if err := ix.RefreshValidators(ctx); err != nil && ctx.Err() == nil {
			ix.log.Debug("current validators not refreshed", "err", err)
		}
		if err := ix.RecordSupply(ctx); err != nil && ctx.Err() == nil {
			ix.log.Debug("the node's supply not recorded", "err", err)
		}
		if err := ix.RecordNode(ctx); err != nil && ctx.Err() == nil {
			ix.log.Debug("the node's info answers not recorded", "err", err)
		}
		t := time.NewTimer(ix.opts.ValidatorsInterval)
		select {
		case <-t.C:
		case <-ix.refresh:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

// RefreshValidators reads platform.getCurrentValidators now for the primary
// network and every indexed subnet.
func (ix *Index) RefreshValidators(ctx context.Context) error {
	ids, err := ix.st.SubnetIDs(ctx)
	if err != nil {
		return err
	}
	for _, s := range append([]string{avax.EmptyID.String()}, ids...) {
		id := s
		if s == avax.EmptyID.String() {
			id = "" // the primary network
		}
		r, err := ix.node.P().CurrentValidators(ctx, id)
		if id == "" && err == nil {
			r, err = ix.node.P().WithDelegators(ctx, r)
		}
		if err != nil {
			return err
		}
		if err := ix.SetCurrentValidators(ctx, s, r); err != nil {
			return err
		}
	}
	return nil
}

// RecordSupply stores the node's platform.getCurrentSupply now.
func (ix *Index) RecordSupply(ctx context.Context) error {
	r, err := ix.node.P().CurrentSupply(ctx)
	if err != nil {
		return err
	}
	return ix.record(func() error {
		return ix.st.SetSupply(Supply{Current: r.Supply, Height: r.Height, Time: ix.now().Unix()})
	})
}

// RecordNode stores the node's current answers to the recorded methods.
// A method the node does not answer keeps its last recorded answer.
func (ix *Index) RecordNode(ctx context.Context) error {
	var errs []error
	for _, m := range recordedMethods {
		r, err := ix.node.Answer(ctx, m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := ix.record(func() error { return ix.st.Record(m, r) }); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}
