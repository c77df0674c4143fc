package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/avaedge/avaedge/catalog"
	"github.com/avaedge/avaedge/local/api/evmdata"
	"github.com/avaedge/avaedge/local/api/metricsapi"
	"github.com/avaedge/avaedge/local/source/evmindex"
	"github.com/avaedge/avaedge/local/source/lease"
	"github.com/avaedge/avaedge/local/source/pindex"
	"github.com/avaedge/avaedge/local/world/devnet"
	"github.com/avaedge/avaedge/local/world/followed"
	"github.com/jackc/pgx/v5"
)

// buildHooks let a test watch Build. step, when set, is asked before each
// step and fails Build with its error; opened and closed, when set, are told
// of each component Build opens and closes.
type buildHooks struct {
	step           func(name string) error
	opened, closed func(name string)
}

// closer is a component Build opened.
type closer struct {
	name  string
	close func() error
}

// wiring records what Build handed each component, so that a test can find
// every option in the component it configures.
type wiring struct {
	devnet   devnet.Options
	followed followed.Options
	evmIndex evmindex.Options
	evmInfos []evmdata.ChainInfo
	metrics  metricsapi.Options
	fleet    *fleet // nil without BuildOptions.IndexURL
	engine   *metricsapi.Engine
}

// builder collects what the steps of Build open and contribute.
type builder struct {
	opts     BuildOptions
	log      *slog.Logger
	hooks    buildHooks
	closers  []closer
	handlers map[string]catalog.Handler
	wired    wiring
	// sharedPX is the followed network's P/X index when a fleet shares it
	// (BuildOptions.IndexURL), led or refreshed by wired.fleet.
	sharedPX *pindex.Index
}

// fence is the Fence of the P/X index's shared store, opened with the
// world, before the fleet's lease (which the EVM chains name): until the
// fleet exists nothing is written.
func (b *builder) fence(ctx context.Context, tx pgx.Tx) error {
	if b.wired.fleet == nil {
		return lease.ErrNotHolder
	}
	return b.wired.fleet.fence(ctx, tx)
}

// step asks the test hook before the step called name.
func (b *builder) step(name string) error {
	if b.hooks.step == nil {
		return nil
	}
	if err := b.hooks.step(name); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// opened records a component to close, last opened first.
func (b *builder) opened(name string, close func() error) {
	b.closers = append(b.closers, closer{name, close})
	if b.hooks.opened != nil {
		b.hooks.opened(name)
	}
}

func (b *builder) add(hs map[string]catalog.Handler) {
	for name, h := range hs {
		b.handlers[name] = h
	}
}

func (b *builder) path(file string) string {
	if b.opts.DataDir == "" {
		return ""
	}
	return filepath.Join(b.opts.DataDir, file)
}

// closeAll closes cs, last opened first, and tells closed of each.
func closeAll(cs []closer, closed func(name string)) error {
	var errs []error
	for i := len(cs) - 1; i >= 0; i-- {
		if err := cs[i].close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cs[i].name, err))
		}
		if closed != nil {
			closed(cs[i].name)
		}
	}
	return errors.Join(errs...)
}
