package hostile

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSlowBodiesHTTP2 (finding 7, HTTP/2): over TLS the edge speaks HTTP/2;
// streams whose bodies arrive at 1 byte/s are answered when
// server.body_read_timeout ends, and the same connection keeps serving
// ordinary requests, with bodies and without.
func TestSlowBodiesHTTP2(t *testing.T) {
	const streams = 20
	dir := t.TempDir()
	pool := selfSigned(t, dir)
	up := NewUpstream(t, nil)
	cfg := slowConfig + "tls:\n  cert_file: " + filepath.Join(dir, "cert.pem") + "\n  key_file: " + filepath.Join(dir, "key.pem") +
		"\n  http_listen: 127.0.0.1:0\n"
	edge := StartEdge(t, EdgeOptions{Env: proxyEnv(up), Config: cfg, Keys: keysFile(0, true)})
	base := strings.Replace(edge.URL, "http://", "https://", 1)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2: true,
	}}

	type result struct {
		status, proto int
		took          time.Duration
		err           error
	}
	results := make([]result, streams)
	var wg sync.WaitGroup
	for i := 0; i < streams; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr, pw := io.Pipe()
			defer pw.Close()
			go func() { // 1 byte/s until the stream ends
				for j := 0; j < 100; j++ {
					if _, err := pw.Write([]byte{' '}); err != nil {
						return
					}
					time.Sleep(time.Second)
				}
			}()
			start := time.Now()
			resp, err := client.Post(base+"/ext/info", "application/json", pr)
			if err != nil {
				results[i] = result{err: err, took: time.Since(start)}
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			results[i] = result{status: resp.StatusCode, proto: resp.ProtoMajor, took: time.Since(start)}
		}()
	}
	wg.Wait()
	var latest time.Duration
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("slow stream %d: %v after %v", i, r.err, r.took)
		}
		if r.proto != 2 || r.status < 400 || r.status >= 500 {
			t.Errorf("slow stream %d: HTTP/%d %d; want an HTTP/2 4xx", i, r.proto, r.status)
		}
		if r.took > bodyReadTimeout+time.Second {
			t.Errorf("slow stream %d answered after %v; want within %v", i, r.took, bodyReadTimeout+time.Second)
		}
		latest = max(latest, r.took)
	}
	t.Logf("%d slow HTTP/2 streams answered %d, the last after %v", streams, results[0].status, latest.Round(time.Millisecond))

	resp, err := client.Post(base+"/ext/info", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"info.getNetworkID"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 || !strings.Contains(string(b), `"id":7`) {
		t.Fatalf("ordinary JSON-RPC call after the slow streams: HTTP/%d %d %s", resp.ProtoMajor, resp.StatusCode, b)
	}
	resp, err = client.Get(base + "/v1/chains/43114/blocks/3")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Fatalf("GET after the slow streams: HTTP/%d %d", resp.ProtoMajor, resp.StatusCode)
	}
}

// selfSigned writes cert.pem and key.pem for 127.0.0.1 into dir and returns
// a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}
