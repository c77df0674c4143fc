package edgetls

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/letsencrypt/pebble/v2/ca"
	"github.com/letsencrypt/pebble/v2/db"
	"github.com/letsencrypt/pebble/v2/va"
	"github.com/letsencrypt/pebble/v2/wfe"

	"github.com/avaedge/avaedge/internal/redistest"
)

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestACMEWithPebble obtains a certificate from a Pebble CA on loopback
// through the HTTP-01 challenge (served by the Manager's HTTPHandler) and
// makes an HTTPS request with that name over HTTP/2.
func TestACMEWithPebble(t *testing.T) {
	t.Setenv("PEBBLE_VA_NOSLEEP", "1")
	t.Run("file storage", func(t *testing.T) { acmeFlow(t, Options{StoragePath: t.TempDir()}) })
	t.Run("redis storage", func(t *testing.T) {
		srv := redistest.Start(t)
		acmeFlow(t, Options{Redis: srv.Client(), RedisPrefix: "acme-test"})
		// The certificate is in Redis for the other replicas.
		keys, err := srv.Client().Keys(context.Background(), "acme-test|tls|certificates/*").Result()
		if err != nil || len(keys) == 0 {
			t.Fatalf("no certificate in Redis: %v %v", keys, err)
		}
	})
}

func acmeFlow(t *testing.T, storage Options) {
	logger := log.New(io.Discard, "", 0)
	httpPort := freePort(t)
	store := db.NewMemoryStore()
	authority := ca.New(logger, store, "", "ecdsa", 0, 1, map[string]ca.Profile{"default": {Description: "default"}})
	validator := va.New(logger, httpPort, freePort(t), false, "", store)
	front := wfe.New(logger, store, validator, authority, nil, false, false, 3, 5)
	acme := httptest.NewTLSServer(front.Handler())
	defer acme.Close()
	acmeRoots := x509.NewCertPool()
	acmeRoots.AddCert(acme.Certificate())

	m, err := New(Options{
		Domains:        []string{"localhost"},
		Email:          "ops@example.com",
		CA:             acme.URL + "/dir",
		CARoots:        acmeRoots,
		StoragePath:    storage.StoragePath,
		Redis:          storage.Redis,
		RedisPrefix:    storage.RedisPrefix,
		AltHTTPPort:    httpPort,
		DisableTLSALPN: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	// The plain-HTTP listener answers the challenge and redirects the rest.
	plain := &http.Server{Addr: "127.0.0.1:" + itoa(httpPort), Handler: m.HTTPHandler()}
	ln, err := net.Listen("tcp", plain.Addr)
	if err != nil {
		t.Fatal(err)
	}
	go plain.Serve(ln)
	defer plain.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := m.Manage(ctx); err != nil {
		t.Fatal(err)
	}

	// Serve HTTPS with the obtained certificate.
	tlsLn, err := tls.Listen("tcp", "127.0.0.1:0", m.TLSConfig())
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello "+r.Proto) })}
	go srv.Serve(tlsLn)
	defer srv.Close()

	roots := x509.NewCertPool()
	roots.AddCert(authority.GetRootCert(0).Cert)
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots, ServerName: "localhost"},
		ForceAttemptHTTP2: true,
	}}
	resp, err := client.Get("https://" + tlsLn.Addr().String() + "/")
	if err != nil {
		t.Fatalf("HTTPS with the ACME certificate: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 || string(body) != "hello HTTP/2.0" {
		t.Fatalf("got %s %q; want HTTP/2", resp.Proto, body)
	}
	if resp.TLS.PeerCertificates[0].Issuer.CommonName == "" || resp.TLS.PeerCertificates[0].DNSNames[0] != "localhost" {
		t.Fatalf("certificate %+v", resp.TLS.PeerCertificates[0].Subject)
	}

	// Anything else on plain HTTP is redirected to HTTPS.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noFollow.Get("http://" + plain.Addr + "/v1/chains?x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != "https://localhost/v1/chains?x=1" {
		t.Fatalf("redirect: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The redirect never names a host the client chose (no open redirect).
	for host, want := range map[string]string{"evil.example": "https://localhost/p", "LOCALHOST:80": "https://localhost/p"} {
		req, _ := http.NewRequest("GET", "http://"+plain.Addr+"/p", nil)
		req.Host = host
		resp, err = noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("Host %q: Location %q; want %q", host, got, want)
		}
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// TestStaticCertificate serves a certificate from files.
func TestStaticCertificate(t *testing.T) {
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "edge.test"}, DNSNames: []string{"edge.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	kder, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	m, err := New(Options{CertFile: certFile, KeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", m.TLSConfig())
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) })}
	go srv.Serve(ln)
	defer srv.Close()
	cert, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "edge.test"}, ForceAttemptHTTP2: true}}
	resp, err := client.Get("https://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("proto %s", resp.Proto)
	}
	if _, err := New(Options{}); err == nil {
		t.Fatal("no domains and no certificate accepted")
	}
}
