package cli

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"log/slog"
)

// requestPageSecret is the key of the request page's CSRF tokens: derived
// (HMAC-SHA256) from the secret key, so that replicas sharing the key
// accept each other's forms, and never the key itself.
func requestPageSecret(cfg Config, logger *slog.Logger) ([]byte, error) {
	key, err := loadSecretKey(cfg, logger)
	if err != nil {
		return nil, fmt.Errorf("request page secret: %w", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("einvoice request page csrf v1"))
	return m.Sum(nil), nil
}
