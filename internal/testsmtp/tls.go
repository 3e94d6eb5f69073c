package testsmtp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"sync"
	"time"
)

// tlsPair is the server's TLS configuration and a client's trusting it.
type tlsPair struct {
	server, client *tls.Config
	// certPEM is the certificate, PEM-encoded (a service's --smtp-ca).
	certPEM []byte
}

// testTLS returns the process's test certificate (made once): self-signed,
// for 127.0.0.1, ::1 and localhost.
var testTLS = sync.OnceValues(func() (*tlsPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "testsmtp", Organization: []string{"testsmtp"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tlsPair{
		server:  &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}, MinVersion: tls.VersionTLS12},
		client:  &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
	}, nil
})

// tlsListener wraps ln: implicit TLS.
func tlsListener(ln net.Listener, config *tls.Config) net.Listener {
	return tls.NewListener(ln, config)
}
