package cli

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/einvoice/einvoice/internal/sandbox"
	"github.com/einvoice/einvoice/internal/sqlstore"
	"software.sslmate.com/src/go-pkcs12"
)

// listFlag is a flag that may be repeated, each value a comma-separated
// list; empty items are dropped.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set adds the items of v.
func (l *listFlag) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}

// trustedCAs reads the certificate authorities of --sandbox-trust-ca.
func (c Config) trustedCAs() ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for _, f := range c.SandboxTrustCA {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--sandbox-trust-ca: %w", err)
		}
		cs, err := sandbox.ParseCertificates(b)
		if err != nil {
			return nil, fmt.Errorf("--sandbox-trust-ca %s: %w", f, err)
		}
		out = append(out, cs...)
	}
	return out, nil
}

// openSandbox opens the database of a sandbox command and returns a
// sandbox on it (not serving), to reach its test certificate authority.
func (m *Main) openSandbox(ctx context.Context, cfg Config) (*sandbox.Server, func(), error) {
	if err := errors.Join(cfg.sandboxErrors()...); err != nil {
		return nil, nil, err
	}
	store, err := openStore(ctx, cfg, newLogger(m, cfg))
	if err != nil {
		return nil, nil, err
	}
	sb := sandbox.New(sandbox.Options{DB: store.DB(), ReadDB: store.ReadDB(), Postgres: store.Engine() == sqlstore.Postgres,
		Now: m.now(), Secrets: store.Secrets()})
	return sb, func() { _ = store.Close() }, nil
}

// sandboxCA is `einvoice sandbox ca`: the PEM certificate of the sandbox's
// test certificate authority (made on first use), on stdout.
func (m *Main) sandboxCA(ctx context.Context, cfg Config, args []string) error {
	fs := m.newFlagSet("sandbox ca", "einvoice sandbox ca [--db DB]")
	cfg.DatabaseURL = "sandbox.db"
	cfg.dbFlag(fs.FlagSet)
	if _, err := fs.parse(args); err != nil {
		return err
	}
	sb, closeDB, err := m.openSandbox(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDB()
	p, err := sb.CACertificatePEM(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(m.Stdout, p)
	return err
}

// sandboxIssueCert is `einvoice sandbox issue-cert`: a signing certificate
// from the sandbox's test certificate authority for a TIN, written as PEM
// files or as a PKCS#12 file.
func (m *Main) sandboxIssueCert(ctx context.Context, cfg Config, args []string) error {
	fs := m.newFlagSet("sandbox issue-cert", "einvoice sandbox issue-cert --tin TIN [--name ORG] [--brn BRN] (--out-cert FILE --out-key FILE | --pkcs12 FILE --password P) [--db DB]")
	cfg.DatabaseURL = "sandbox.db"
	cfg.dbFlag(fs.FlagSet)
	var req sandbox.CertificateRequest
	var outCert, outKey, p12, password string
	fs.StringVar(&req.TIN, "tin", "", "the organisation's TIN, written in the certificate (required)")
	fs.StringVar(&req.Name, "name", "", "the organisation's name (CN and O; default Sandbox Test Organisation)")
	fs.StringVar(&req.BRN, "brn", "", "the organisation's registration number (the subject's serialNumber; default 202001000001)")
	fs.StringVar(&outCert, "out-cert", "", "write the PEM certificate to this file")
	fs.StringVar(&outKey, "out-key", "", "write the PEM private key to this file (mode 0600)")
	fs.StringVar(&p12, "pkcs12", "", "write certificate and key as a PKCS#12 file (mode 0600)")
	fs.StringVar(&password, "password", "", "the PKCS#12 file's password (required with --pkcs12)")
	if _, err := fs.parse(args); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(req.TIN) == "":
		return fs.fail("--tin is required")
	case p12 == "" && (outCert == "" || outKey == ""):
		return fs.fail("give --out-cert and --out-key, or --pkcs12 and --password")
	case p12 != "" && (outCert != "" || outKey != ""):
		return fs.fail("--pkcs12 and --out-cert/--out-key exclude each other")
	case p12 != "" && password == "":
		return fs.fail("--password is required with --pkcs12")
	}
	sb, closeDB, err := m.openSandbox(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeDB()
	c, err := sb.IssueCertificate(ctx, req)
	if err != nil {
		return err
	}
	if p12 != "" {
		b, err := pkcs12.Modern.Encode(c.PrivateKey, c.Certificate, nil, password)
		if err != nil {
			return fmt.Errorf("encode PKCS#12: %w", err)
		}
		if err := os.WriteFile(p12, b, 0o600); err != nil {
			return fmt.Errorf("write %s: %w", p12, err)
		}
	} else {
		if err := os.WriteFile(outCert, []byte(c.CertificatePEM), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", outCert, err)
		}
		if err := os.WriteFile(outKey, []byte(c.PrivateKeyPEM), 0o600); err != nil {
			return fmt.Errorf("write %s: %w", outKey, err)
		}
	}
	_, err = fmt.Fprintf(m.Stdout, "issued a certificate for %s (TIN %s), serial %s, valid until %s\n",
		c.Certificate.Subject.CommonName, strings.TrimSpace(req.TIN), c.Certificate.SerialNumber, c.Certificate.NotAfter.UTC().Format("2006-01-02"))
	return err
}
