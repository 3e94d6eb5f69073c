package sandbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// maxSeed bounds the documents one Seed stores (five-digit code numbers).
const maxSeed = 100000

// Seed stores n documents as if the client clientID had submitted them in
// one submission: Valid invoices with code numbers codePrefix followed by
// 00000, 00001, ..., the first received (and issued) at first and each next
// one step later. It is for tests of clients that need more documents than
// sending them allows (the search lists at most 10,000), and skips every
// check; the documents have no content.
func (s *Server) Seed(ctx context.Context, clientID, codePrefix string, n int, first time.Time, step time.Duration) error {
	if n <= 0 || n > maxSeed {
		return fmt.Errorf("sandbox seed: %d documents, want 1 to %d", n, maxSeed)
	}
	uid, prefix := newID(uidLen), newID(6)
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sandbox_submissions (uid, client_id, on_behalf_of, received_at, document_count)
			VALUES ($1, $2, '', $3, $4)`, uid, clientID, micros(first), n); err != nil {
			return fmt.Errorf("sandbox seed: %w", err)
		}
		_, err := tx.ExecContext(ctx, `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < $1)
			INSERT INTO sandbox_documents (uuid, submission_uid, position, client_id, on_behalf_of, internal_id, type_code,
				type_version, issuer_tin, issuer_name, receiver_tin, receiver_name, date_time_issued, issued_at, total_excluding_tax,
				total_discount, total_net_amount, total_payable_amount, received_at, validated_at, verdict, long_id, validation, document)
			SELECT `+s.padded("$2", 20)+`, $3, i, $4, '', `+s.padded("$5", 5)+`, '01', '1.0', 'C1234567890', 'Seeded supplier',
				'IG123456789', 'Seeded buyer', $6, CAST($7 AS BIGINT) + i * CAST($8 AS BIGINT), '0', '0', '0', '0',
				CAST($7 AS BIGINT) + i * CAST($8 AS BIGINT), CAST($7 AS BIGINT) + i * CAST($8 AS BIGINT), 'Valid', `+s.padded("''", 40)+`,
				'[]', '{}'
			FROM seq`, n, prefix, uid, clientID, codePrefix, formatTime(first), micros(first), step.Microseconds())
		if err != nil {
			return fmt.Errorf("sandbox seed: %w", err)
		}
		return nil
	})
}

// padded is the SQL of text followed by the row number i zero-padded to
// width digits.
func (s *Server) padded(text string, width int) string {
	if s.postgres {
		return fmt.Sprintf("%s || lpad(i::text, %d, '0')", text, width)
	}
	return fmt.Sprintf("printf('%%s%%0%dd', %s, i)", width, text)
}
