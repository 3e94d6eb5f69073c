package sandbox

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Client is a sandbox client: its credentials and the taxpayer it is bound
// to. An intermediary's client is bound to the intermediary's own TIN and
// may act (with the onbehalfof header) for each TIN in Represents.
type Client struct {
	// ID and Secret are the client credentials of the login.
	ID, Secret string
	// TIN is the taxpayer the client logs in as (the intermediary's own TIN
	// for an intermediary; may be empty when only Represents is known).
	TIN string
	// IDType and IDValue are that taxpayer's id (BRN, NRIC, PASSPORT,
	// ARMY), against which the TIN check cross-checks a TIN bound to it.
	IDType, IDValue string
	// Name is the taxpayer's name (tokens and search TIN).
	Name string
	// Represents are the TINs an intermediary may act for.
	Represents []string
}

// NewClientCredentials returns a fresh client id (a UUID, as the
// authority's) and secret.
func NewClientCredentials() (id, secret string) {
	return uuid.NewString(), rand.Text() + rand.Text()
}

// AddClient registers a client (or replaces the one with its id): the
// standalone sandbox's clients (einvoice sandbox client add). The secret is
// stored hashed.
func (s *Server) AddClient(ctx context.Context, c Client) error {
	if strings.TrimSpace(c.ID) == "" || c.Secret == "" {
		return errors.New("a client needs an id and a secret")
	}
	if !cleanText(c.ID, maxClientID) || !cleanText(c.Secret, maxClientID) {
		return errors.New("client id or secret too long or not text")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO sandbox_clients (client_id, secret_hash, registered_at, tin, id_type, id_value, name, represents)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (client_id) DO UPDATE SET secret_hash = excluded.secret_hash, tin = excluded.tin, id_type = excluded.id_type,
			id_value = excluded.id_value, name = excluded.name, represents = excluded.represents`,
		c.ID, sha256Hex([]byte(c.Secret)), micros(s.now()), strings.ToUpper(strings.TrimSpace(c.TIN)), c.IDType, c.IDValue, c.Name,
		strings.ToUpper(strings.Join(c.Represents, " ")))
	if err != nil {
		return fmt.Errorf("register client %s: %w", c.ID, err)
	}
	return nil
}

// login finds the client of these credentials: a registered one, else
// those Options.Clients finds (the tenants' profiles). Several found with
// the secret (an intermediary's tenants share its credentials) merge: the
// first one's TIN and id, every one's represented TINs. ok is false for an
// unknown id or a wrong secret.
func (s *Server) login(ctx context.Context, clientID, secret string) (Client, bool, error) {
	hash := sha256Hex([]byte(secret))
	var c Client
	var stored, represents string
	err := s.rdb.QueryRowContext(ctx, `SELECT secret_hash, tin, id_type, id_value, name, represents FROM sandbox_clients WHERE client_id = $1`,
		clientID).Scan(&stored, &c.TIN, &c.IDType, &c.IDValue, &c.Name, &represents)
	switch {
	case err == nil:
		if subtle.ConstantTimeCompare([]byte(stored), []byte(hash)) != 1 {
			return Client{}, false, nil
		}
		c.ID, c.Represents = clientID, strings.Fields(represents)
		return c, true, nil
	case !errors.Is(err, sql.ErrNoRows):
		return Client{}, false, fmt.Errorf("read client: %w", err)
	case s.clients == nil:
		return Client{}, false, nil
	}
	found, err := s.clients(ctx, clientID)
	if err != nil {
		return Client{}, false, fmt.Errorf("find client %s: %w", clientID, err)
	}
	ok := false
	for _, f := range found {
		if f.ID != clientID || subtle.ConstantTimeCompare([]byte(f.Secret), []byte(secret)) != 1 {
			continue
		}
		if !ok {
			c, ok = f, true
			c.Represents = nil
		}
		for _, r := range f.Represents {
			r = strings.ToUpper(strings.TrimSpace(r))
			if r != "" && !slices.Contains(c.Represents, r) {
				c.Represents = append(c.Represents, r)
			}
		}
	}
	c.TIN = strings.ToUpper(strings.TrimSpace(c.TIN))
	return c, ok, nil
}

// mayActFor reports whether the client may act for the taxpayer of an
// onbehalfof value (a TIN, or TIN:ROB).
func (c Client) mayActFor(onBehalfOf string) bool {
	tin, _, _ := strings.Cut(onBehalfOf, ":")
	tin = strings.ToUpper(strings.TrimSpace(tin))
	return tin != "" && (tin == c.TIN || slices.Contains(c.Represents, tin))
}

// boundIdentity is the id of the taxpayer a TIN is bound to: a registered
// client's, else what Options.Taxpayers finds (the tenants' profiles of the
// built-in sandbox). ok is false for a TIN no client is bound to. The TIN
// check cross-checks a bound TIN's id against it (DECISIONS 4).
func (s *Server) boundIdentity(ctx context.Context, tin string) (idType, idValue string, ok bool, err error) {
	tin = strings.ToUpper(strings.TrimSpace(tin))
	if tin == "" {
		return "", "", false, nil
	}
	found, err := s.findTaxpayers(ctx, TaxpayerQuery{TIN: tin})
	if err != nil || len(found) == 0 {
		return "", "", false, err
	}
	return found[0].IDType, found[0].IDValue, true, nil
}
