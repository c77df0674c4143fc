package edgetls

import (
	"log/slog"
	"path/filepath"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/config"
)

// ConfigOptions is the tls section as the public listener's certificate
// manager's options. With a shared Redis, certificates live there so every
// replica uses the one certificate that any of them obtains.
func ConfigOptions(cfg *config.Config, log *slog.Logger, rdb redis.UniversalClient) Options {
	storage := ""
	if cfg.DataDir != "" {
		storage = filepath.Join(cfg.DataDir, "certs")
	}
	return Options{
		Domains:     cfg.TLS.Domains,
		Email:       cfg.TLS.Email,
		CA:          cfg.TLS.CA,
		StoragePath: storage,
		Redis:       rdb,
		RedisPrefix: cfg.RedisPrefix,
		CertFile:    cfg.TLS.CertFile,
		KeyFile:     cfg.TLS.KeyFile,
		Logger:      log,
	}
}
