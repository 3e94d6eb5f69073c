package cli

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/mailer"
)

// newMailSender is the operator's mail server of cfg; nil without one
// (messages are then kept in the service's mailbox).
func newMailSender(cfg Config, logger *slog.Logger) (einvoice.MailSender, error) {
	if cfg.SMTPURL == "" {
		logger.Debug("no mail server configured: messages are kept in the service's mailbox (--smtp-url)")
		return nil, nil
	}
	o := mailer.Options{Timeout: cfg.SMTPTimeout}
	if cfg.SMTPCA != "" {
		pemBytes, err := os.ReadFile(cfg.SMTPCA)
		if err != nil {
			return nil, fmt.Errorf("--smtp-ca: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pemBytes) {
			return nil, fmt.Errorf("--smtp-ca %s: no PEM certificate in it", cfg.SMTPCA)
		}
		o.TLSConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	s, err := mailer.New(cfg.SMTPURL, cfg.MailFrom, o)
	if err != nil {
		return nil, err
	}
	logger.Info("mail server", "smtp", s.String(), "from", cfg.MailFrom)
	return s, nil
}
