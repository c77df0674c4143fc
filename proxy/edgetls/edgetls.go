// Package edgetls terminates TLS for the edge: certificates obtained and
// renewed automatically by ACME (caddyserver/certmagic, HTTP-01 and
// TLS-ALPN-01), or a static certificate; HTTP/2; and the plain-HTTP listener's
// handler that answers HTTP-01 challenges and redirects everything else to
// HTTPS.
package edgetls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/caddyserver/certmagic"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// Options configures a Manager. Either Domains (ACME) or CertFile and
// KeyFile (static) must be set.
type Options struct {
	// Domains are the names to obtain certificates for by ACME.
	Domains []string
	// Email is the ACME account's contact.
	Email string
	// CA is the ACME directory URL. "" means Let's Encrypt production.
	CA string
	// CARoots, when set, are the roots trusted for the ACME server's own
	// HTTPS (a private CA such as Pebble in tests).
	CARoots *x509.CertPool
	// StoragePath is where certificates and ACME accounts are kept. ""
	// means certmagic's default data directory.
	StoragePath string
	// Redis, when set, keeps certificates, accounts and locks in Redis
	// instead (RedisStorage), so replicas share them.
	Redis redis.UniversalClient
	// RedisPrefix starts the Redis keys. "" means "avaedge".
	RedisPrefix string
	// CertFile and KeyFile are a static certificate, used instead of ACME.
	CertFile, KeyFile string
	// AltHTTPPort and AltTLSALPNPort are the ports the challenges are served
	// on when they are not 80 and 443 (behind a port mapping, or in tests).
	AltHTTPPort, AltTLSALPNPort int
	// DisableTLSALPN turns off the TLS-ALPN-01 challenge.
	DisableTLSALPN bool
	// Logger receives certificate events. Nil means slog.Default().
	Logger *slog.Logger
}

// Manager holds the edge's certificates. It is safe for concurrent use.
type Manager struct {
	opts   Options
	cfg    *certmagic.Config
	issuer *certmagic.ACMEIssuer
	static *tls.Certificate
}

// New returns a Manager; with Domains it does not obtain certificates until
// Manage is called.
func New(opts Options) (*Manager, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	m := &Manager{opts: opts}
	if opts.CertFile != "" || opts.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls: %w", err)
		}
		m.static = &cert
		return m, nil
	}
	if len(opts.Domains) == 0 {
		return nil, errors.New("tls: give domains (ACME) or a certificate and key file")
	}
	var cfg *certmagic.Config
	cache := certmagic.NewCache(certmagic.CacheOptions{
		GetConfigForCert: func(certmagic.Certificate) (*certmagic.Config, error) { return cfg, nil },
		Logger:           zap.NewNop(),
	})
	tmpl := certmagic.Config{Logger: zap.NewNop()}
	switch {
	case opts.Redis != nil:
		tmpl.Storage = &RedisStorage{Client: opts.Redis, Prefix: opts.RedisPrefix}
	case opts.StoragePath != "":
		tmpl.Storage = &certmagic.FileStorage{Path: opts.StoragePath}
	}
	cfg = certmagic.New(cache, tmpl)
	ca := opts.CA
	if ca == "" {
		ca = certmagic.LetsEncryptProductionCA
	}
	m.issuer = certmagic.NewACMEIssuer(cfg, certmagic.ACMEIssuer{
		CA:                      ca,
		Email:                   opts.Email,
		Agreed:                  true,
		TrustedRoots:            opts.CARoots,
		AltHTTPPort:             opts.AltHTTPPort,
		AltTLSALPNPort:          opts.AltTLSALPNPort,
		DisableTLSALPNChallenge: opts.DisableTLSALPN,
		Logger:                  zap.NewNop(),
	})
	cfg.Issuers = []certmagic.Issuer{m.issuer}
	m.cfg = cfg
	return m, nil
}

// Manage obtains (or loads) certificates for every domain and keeps them
// renewed until ctx ends.
func (m *Manager) Manage(ctx context.Context) error {
	if m.cfg == nil {
		return nil
	}
	if err := m.cfg.ManageSync(ctx, m.opts.Domains); err != nil {
		return fmt.Errorf("tls: obtaining certificates: %w", err)
	}
	m.opts.Logger.Info("tls: certificates ready", "domains", m.opts.Domains)
	return nil
}

// TLSConfig returns the public listener's TLS configuration: HTTP/2 and
// HTTP/1.1, and the TLS-ALPN-01 challenge protocol when ACME is on.
func (m *Manager) TLSConfig() *tls.Config {
	if m.static != nil {
		return &tls.Config{
			Certificates: []tls.Certificate{*m.static},
			NextProtos:   []string{"h2", "http/1.1"},
			MinVersion:   tls.VersionTLS12,
		}
	}
	c := m.cfg.TLSConfig()
	c.NextProtos = append([]string{"h2", "http/1.1"}, c.NextProtos...)
	c.MinVersion = tls.VersionTLS12
	return c
}

// HTTPHandler is the plain-HTTP listener's handler: it answers ACME HTTP-01
// challenges and redirects every other request to HTTPS on the same path
// (308, so methods and bodies are kept). The redirect names the requested
// host only when it is one this edge has a certificate for, else the first
// configured one: a Location built from any client's Host header would make
// the edge an open redirect.
func (m *Manager) HTTPHandler() http.Handler {
	names := m.names()
	redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		target := ""
		for _, n := range names {
			if strings.EqualFold(n, host) {
				target = n
				break
			}
		}
		if target == "" && len(names) > 0 {
			target = names[0]
		}
		if target == "" {
			http.Error(w, "unknown host", http.StatusMisdirectedRequest)
			return
		}
		http.Redirect(w, r, "https://"+target+r.URL.RequestURI(), http.StatusPermanentRedirect)
	})
	if m.issuer == nil {
		return redirect
	}
	return m.issuer.HTTPChallengeHandler(redirect)
}

// names are the host names the edge serves: the ACME domains, or the static
// certificate's DNS names.
func (m *Manager) names() []string {
	if len(m.opts.Domains) > 0 {
		return m.opts.Domains
	}
	if m.static != nil {
		leaf := m.static.Leaf
		if leaf == nil && len(m.static.Certificate) > 0 {
			leaf, _ = x509.ParseCertificate(m.static.Certificate[0])
		}
		if leaf != nil {
			return leaf.DNSNames
		}
	}
	return nil
}
