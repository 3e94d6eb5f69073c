package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, to read the sandbox's own tables
)

// heldDoc is one document the authority holds, from its own tables.
type heldDoc struct {
	UUID       string
	CodeNumber string
	// Status is the authority's status now: Submitted until the verdict
	// shows, then Valid or Invalid (Cancelled once cancelled).
	Status string
	// Duplicate tells that its verdict is DS302: a copy of a document the
	// authority already had.
	Duplicate bool
	// Hash is the hex SHA-256 of the stored document.
	Hash       string
	ReceivedAt time.Time
}

// readAuthority reads every document of the sandbox's SQLite file at path
// (read-only, while the sandbox may still run), oldest first.
func readAuthority(ctx context.Context, path string) ([]heldDoc, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open the authority's database: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT uuid, internal_id, verdict, validation, document, received_at, validated_at,
		cancelled_at IS NOT NULL FROM sandbox_documents ORDER BY received_at, uuid`)
	if err != nil {
		return nil, fmt.Errorf("read the authority's documents: %w", err)
	}
	defer rows.Close()
	now := time.Now()
	var out []heldDoc
	for rows.Next() {
		var d heldDoc
		var verdict, validation, document string
		var received, validated int64
		var cancelled bool
		if err := rows.Scan(&d.UUID, &d.CodeNumber, &verdict, &validation, &document, &received, &validated, &cancelled); err != nil {
			return nil, fmt.Errorf("read the authority's documents: %w", err)
		}
		d.ReceivedAt = time.UnixMicro(received)
		switch {
		case now.Before(time.UnixMicro(validated)):
			d.Status = "Submitted"
		case verdict == "Invalid":
			d.Status = "Invalid"
		case cancelled:
			d.Status = "Cancelled"
		default:
			d.Status = "Valid"
		}
		d.Duplicate = verdict == "Invalid" && strings.Contains(validation, `"DS302"`)
		sum := sha256.Sum256([]byte(document))
		d.Hash = hex.EncodeToString(sum[:])
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the authority's documents: %w", err)
	}
	return out, nil
}
