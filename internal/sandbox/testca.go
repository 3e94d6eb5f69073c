package sandbox

// The sandbox's test certificate authority (DECISIONS 14): made once per
// database, kept in sandbox_ca with its key sealed, never served.

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Sealer seals and opens the sandbox's certificate authority key (the
// service's secret box; sqlstore.Sealer has this shape).
type Sealer interface {
	Seal(plaintext []byte) (string, error)
	Open(sealed string) ([]byte, error)
}

// caName is the subject of the sandbox's certificate authority.
const caName = "einvoice Sandbox Test CA"

// plainPrefix marks a CA key stored without a sealer.
const plainPrefix = "plain:"

// testCA is the sandbox's certificate authority.
type testCA struct {
	cert *x509.Certificate
	pem  string
	key  crypto.Signer
}

// ca returns the sandbox's certificate authority, making it on first use.
// Several processes may race to make it: the first row stored wins and
// everyone reads that one back. It is cached once read (it never changes).
func (s *Server) ca(ctx context.Context) (*testCA, error) {
	s.caMu.Lock()
	defer s.caMu.Unlock()
	if s.caCache != nil {
		return s.caCache, nil
	}
	ca, err := s.readCA(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		if err = s.makeCA(ctx); err == nil {
			ca, err = s.readCA(ctx)
		}
	}
	if err != nil {
		return nil, err
	}
	s.caCache = ca
	return ca, nil
}

func (s *Server) readCA(ctx context.Context) (*testCA, error) {
	var certPEM, sealed string
	if err := s.db.QueryRowContext(ctx, `SELECT cert_pem, key_sealed FROM sandbox_ca WHERE id = 1`).Scan(&certPEM, &sealed); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("sandbox: read the test CA: %w", err)
	}
	var keyDER []byte
	if rest, ok := strings.CutPrefix(sealed, plainPrefix); ok {
		b, _ := pem.Decode([]byte(rest))
		if b == nil {
			return nil, errors.New("sandbox: the test CA's key is not PEM")
		}
		keyDER = b.Bytes
	} else {
		if s.secrets == nil {
			return nil, errors.New("sandbox: the test CA's key is sealed and this process has no secret key to open it")
		}
		var err error
		if keyDER, err = s.secrets.Open(sealed); err != nil {
			return nil, fmt.Errorf("sandbox: open the test CA's key: %w", err)
		}
	}
	key, err := x509.ParsePKCS1PrivateKey(keyDER)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the test CA's key: %w", err)
	}
	b, _ := pem.Decode([]byte(certPEM))
	if b == nil {
		return nil, errors.New("sandbox: the test CA's certificate is not PEM")
	}
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the test CA's certificate: %w", err)
	}
	return &testCA{cert: cert, pem: certPEM, key: key}, nil
}

// makeCA stores a new certificate authority unless one is there already.
func (s *Server) makeCA(ctx context.Context) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("sandbox: make the test CA's key: %w", err)
	}
	now := s.now()
	serial, err := randomSerial()
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: caName, Organization: []string{"einvoice Sandbox"}, Country: []string{"MY"}},
		NotBefore:             now.Add(-24 * time.Hour),
		NotAfter:              now.AddDate(20, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("sandbox: make the test CA: %w", err)
	}
	keyDER := x509.MarshalPKCS1PrivateKey(key)
	var sealed string
	if s.secrets != nil {
		if sealed, err = s.secrets.Seal(keyDER); err != nil {
			return fmt.Errorf("sandbox: seal the test CA's key: %w", err)
		}
	} else {
		sealed = plainPrefix + string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: keyDER}))
	}
	certPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	if _, err := s.db.ExecContext(ctx, `INSERT INTO sandbox_ca (id, cert_pem, key_sealed, created_at) VALUES (1, $1, $2, $3)
		ON CONFLICT (id) DO NOTHING`, certPEM, sealed, micros(now)); err != nil {
		return fmt.Errorf("sandbox: store the test CA: %w", err)
	}
	return nil
}

func randomSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("sandbox: serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil
}

// CACertificatePEM returns the PEM certificate of the sandbox's test
// certificate authority (made on first use), which `einvoice sandbox ca`
// prints. Certificates it issues (IssueCertificate) sign documents the
// sandbox trusts.
func (s *Server) CACertificatePEM(ctx context.Context) (string, error) {
	ca, err := s.ca(ctx)
	if err != nil {
		return "", err
	}
	return ca.pem, nil
}
