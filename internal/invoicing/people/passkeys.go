package people

import (
	"context"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// Passkeys returns the user's passkeys, oldest first.
func (s *Service) Passkeys(ctx context.Context, userID string) ([]*einvoice.Passkey, error) {
	ps, err := s.store.Passkeys(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("passkeys: %w", err)
	}
	return ps, nil
}
