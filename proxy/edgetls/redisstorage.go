package edgetls

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/redis/go-redis/v9"
)

// RedisStorage keeps certificates, keys, ACME accounts and locks in Redis so
// every replica shares them: one replica obtains a certificate, the others
// load it. It implements certmagic.Storage and is safe for concurrent use.
type RedisStorage struct {
	// Client is the shared Redis (one node or a Cluster).
	Client redis.UniversalClient
	// Prefix starts every key. "" means "avaedge".
	Prefix string
	// LockTTL is how long a lock lives unless released. 0 means 2 minutes.
	LockTTL time.Duration

	tokens syncMap // lock name -> token of the lock this process holds
}

var _ certmagic.Storage = (*RedisStorage)(nil)

func (s *RedisStorage) key(k string) string {
	p := s.Prefix
	if p == "" {
		p = "avaedge"
	}
	return p + "|tls|" + k
}

func (s *RedisStorage) index() string { return s.key("\x00index") }

// Store saves value under key.
func (s *RedisStorage) Store(ctx context.Context, key string, value []byte) error {
	pipe := s.Client.TxPipeline()
	pipe.HSet(ctx, s.key(key), "v", value, "m", time.Now().UnixNano())
	if err := pipe.SAdd(ctx, s.index(), key).Err(); err != nil {
		return err
	}
	_, err := pipe.Exec(ctx)
	if err != nil {
		// A Cluster cannot run one transaction over two slots: do it in two steps.
		if err = s.Client.HSet(ctx, s.key(key), "v", value, "m", time.Now().UnixNano()).Err(); err == nil {
			err = s.Client.SAdd(ctx, s.index(), key).Err()
		}
	}
	return err
}

// Load returns the value of key, or fs.ErrNotExist.
func (s *RedisStorage) Load(ctx context.Context, key string) ([]byte, error) {
	v, err := s.Client.HGet(ctx, s.key(key), "v").Bytes()
	if err == redis.Nil {
		return nil, fs.ErrNotExist
	}
	return v, err
}

// Delete removes key, and every key under it when it is a directory.
func (s *RedisStorage) Delete(ctx context.Context, key string) error {
	all, err := s.Client.SMembers(ctx, s.index()).Result()
	if err != nil {
		return err
	}
	found := false
	for _, k := range all {
		if k == key || strings.HasPrefix(k, key+"/") {
			found = true
			if err := s.Client.Del(ctx, s.key(k)).Err(); err != nil {
				return err
			}
			s.Client.SRem(ctx, s.index(), k)
		}
	}
	if !found {
		return fs.ErrNotExist
	}
	return nil
}

// Exists reports whether key exists.
func (s *RedisStorage) Exists(ctx context.Context, key string) bool {
	n, err := s.Client.Exists(ctx, s.key(key)).Result()
	return err == nil && n == 1
}

// List returns the keys under dir: all of them when recursive, else its
// direct children (files and directories).
func (s *RedisStorage) List(ctx context.Context, dir string, recursive bool) ([]string, error) {
	all, err := s.Client.SMembers(ctx, s.index()).Result()
	if err != nil {
		return nil, err
	}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	seen := map[string]bool{}
	var out []string
	for _, k := range all {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if !recursive {
			rest := strings.TrimPrefix(k, prefix)
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				k = prefix + rest[:i]
			}
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil, fs.ErrNotExist
	}
	return out, nil
}

// Stat describes key.
func (s *RedisStorage) Stat(ctx context.Context, key string) (certmagic.KeyInfo, error) {
	vals, err := s.Client.HMGet(ctx, s.key(key), "v", "m").Result()
	if err != nil {
		return certmagic.KeyInfo{}, err
	}
	if vals[0] == nil {
		if list, err := s.List(ctx, key, false); err == nil && len(list) > 0 {
			return certmagic.KeyInfo{Key: key, IsTerminal: false}, nil
		}
		return certmagic.KeyInfo{}, fs.ErrNotExist
	}
	v, _ := vals[0].(string)
	mstr, _ := vals[1].(string)
	m, _ := strconv.ParseInt(mstr, 10, 64)
	return certmagic.KeyInfo{Key: key, Modified: time.Unix(0, m), Size: int64(len(v)), IsTerminal: true}, nil
}

// Lock takes the named lock, waiting until it is free or ctx ends. A lock
// whose holder died expires after LockTTL.
func (s *RedisStorage) Lock(ctx context.Context, name string) error {
	ttl := s.LockTTL
	if ttl <= 0 {
		ttl = 2 * time.Minute
	}
	var b [16]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	for {
		ok, err := s.Client.SetNX(ctx, s.key("\x00lock|"+name), token, ttl).Result()
		if err != nil {
			return fmt.Errorf("tls storage lock %s: %w", name, err)
		}
		if ok {
			s.tokens.Store(name, token)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

var unlockScript = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// Unlock releases a lock this process holds.
func (s *RedisStorage) Unlock(ctx context.Context, name string) error {
	token, ok := s.tokens.LoadAndDelete(name)
	if !ok {
		return fmt.Errorf("tls storage: lock %s is not held", name)
	}
	return unlockScript.Run(ctx, s.Client, []string{s.key("\x00lock|" + name)}, token).Err()
}
