package main

import (
	"log/slog"
	"path/filepath"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/proxy/edgetls"
)

// newTLS builds the certificate manager of the public listener.
func newTLS(cfg *config.Config, log *slog.Logger) (*edgetls.Manager, error) {
	storage := ""
	if cfg.DataDir != "" {
		storage = filepath.Join(cfg.DataDir, "certs")
	}
	return edgetls.New(edgetls.Options{
		Domains:     cfg.TLS.Domains,
		Email:       cfg.TLS.Email,
		CA:          cfg.TLS.CA,
		StoragePath: storage,
		CertFile:    cfg.TLS.CertFile,
		KeyFile:     cfg.TLS.KeyFile,
		Logger:      log,
	})
}
