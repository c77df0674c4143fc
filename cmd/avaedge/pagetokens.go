package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/avaedge/avaedge/config"
	"github.com/avaedge/avaedge/limits"
	"github.com/avaedge/avaedge/local/vocab/pagetoken"
)

// pageTokenFile is the file of the data directory that keeps the page
// tokens' secret made at first start.
const pageTokenFile = "pagetoken.secret"

// pageTokenSecret returns the deployment's page-token secret and where it
// came from, in this order: config (page_token_secret,
// AVAEDGE_PAGE_TOKEN_SECRET); the keys file's page_token_secret; Redis, where
// the first replica to start stores one that the others read; the index's
// PostgreSQL database (local.index_url), likewise; the data directory, where
// the first start writes one; else one made for this
// process, which no other replica shares and a restart loses (logged). A
// source that fails (Redis down, an unwritable directory) is logged and the
// next one tried.
func pageTokenSecret(ctx context.Context, cfg *config.Config, rdb redis.UniversalClient, log *slog.Logger) (secret []byte, source string, err error) {
	if cfg.PageTokenSecret != "" {
		return []byte(cfg.PageTokenSecret), "config", nil
	}
	if cfg.KeysFile != "" {
		kf, err := limits.LoadKeysFile(cfg.KeysFile)
		if err != nil {
			return nil, "", err
		}
		if kf.PageTokenSecret != "" {
			return []byte(kf.PageTokenSecret), "keys file", nil
		}
	}
	if rdb != nil {
		s, err := redisSecret(ctx, rdb, cfg.RedisPrefix)
		if err == nil {
			return s, "redis", nil
		}
		log.Warn("page tokens: the shared secret could not be read from Redis; replicas may refuse each other's tokens", "err", err)
	}
	if cfg.Local.IndexURL != "" {
		s, err := postgresSecret(ctx, cfg.Local.IndexURL)
		if err == nil {
			return s, "postgres", nil
		}
		log.Warn("page tokens: the shared secret could not be read from the index's PostgreSQL; replicas may refuse each other's tokens", "err", err)
	}
	if cfg.DataDir != "" {
		s, err := fileSecret(filepath.Join(cfg.DataDir, pageTokenFile))
		if err == nil {
			return s, "data directory", nil
		}
		log.Warn("page tokens: the secret could not be kept in the data directory", "err", err)
	}
	log.Warn("page tokens: no page_token_secret, Redis or data directory; tokens are valid on this process only, until it stops")
	return newSecret(), "process", nil
}

// newSecret is 32 random bytes, hex-encoded.
func newSecret() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return []byte(hex.EncodeToString(b))
}

// redisSecret reads the secret replicas share in Redis, storing a new one
// first if none is there (SET NX: the first replica's wins).
func redisSecret(ctx context.Context, rdb redis.UniversalClient, prefix string) ([]byte, error) {
	if prefix == "" {
		prefix = "avaedge"
	}
	key := prefix + "|pagetoken|secret"
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := rdb.SetNX(ctx, key, newSecret(), 0).Err(); err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	s, err := rdb.Get(ctx, key).Bytes()
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	if len(s) < pagetoken.MinSecret {
		return nil, fmt.Errorf("redis: %s holds %d bytes; want at least %d", key, len(s), pagetoken.MinSecret)
	}
	return s, nil
}

// fileSecret reads the secret of path, writing a new one (readable by this
// user only) if the file does not exist. The new file appears whole (a
// temporary file linked in place), so processes starting together on one
// directory read one secret.
func fileSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := linkNewSecret(path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	s := []byte(strings.TrimSpace(string(b)))
	if len(s) < pagetoken.MinSecret {
		return nil, fmt.Errorf("%s holds %d bytes; want at least %d", path, len(s), pagetoken.MinSecret)
	}
	return s, nil
}

// linkNewSecret writes a new secret to a temporary file and links it at
// path; fs.ErrExist says another process was first.
func linkNewSecret(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pageTokenFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(append(newSecret(), '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(tmp.Name(), path)
}
