package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/internal/accesslog"
)

// accessLogFlush bounds writing the access log's queued lines at shutdown,
// after the listeners have drained.
const accessLogFlush = 5 * time.Second

// accessLogOptions are the access log's queue bounds (the defaults; tests
// change them).
var accessLogOptions accesslog.Options

// newAccessLog starts the access log on out, or returns nil when it is
// disabled or the log level leaves out info lines (as when it was written
// through log).
func newAccessLog(ctx context.Context, cfg *config.Config, log *slog.Logger, out io.Writer, reg prometheus.Registerer) (*accesslog.Logger, error) {
	if cfg.DisableAccessLog || !log.Enabled(ctx, slog.LevelInfo) {
		return nil, nil
	}
	opts := accessLogOptions
	opts.Registerer = reg
	return accesslog.New(out, opts)
}

// closeAccessLog writes what the access log has queued, for accessLogFlush
// at most.
func closeAccessLog(l *accesslog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), accessLogFlush)
	defer cancel()
	return l.Close(ctx)
}
