package einvoice

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
)

// GenesisAuditHash is the PrevHash of the first entry of the audit log:
// 64 zeros.
const GenesisAuditHash = "0000000000000000000000000000000000000000000000000000000000000000"

// auditVersion starts the canonical encoding, so that a later encoding can
// be told from this one.
const auditVersion = 1

// AuditHash returns the Hash of e: the lowercase hex SHA-256 of the
// previous entry's hash (its 32 bytes, decoded from e.PrevHash) followed by
// the canonical bytes of e's fields.
//
// The canonical bytes are, in this order: a version byte (1); Seq as 8
// bytes big-endian; At as unix microseconds, 8 bytes big-endian (two's
// complement); then TenantID, ActorKind, ActorID, ActorName, ActorEmail,
// Address, UserAgent, Action, ResourceType, ResourceID, Outcome, Status (in
// decimal) and Detail, each as its length in bytes (4 bytes big-endian)
// and its UTF-8 bytes. Every field is stored as is by both engines (times
// as microseconds), so a hash computed on SQLite is the hash on
// PostgreSQL. A PrevHash that is not 64 hex digits hashes as its raw text,
// so it never matches a chain that was not broken.
func AuditHash(e *AuditEntry) string {
	h := sha256.New()
	prev, err := hex.DecodeString(e.PrevHash)
	if err != nil || len(prev) != sha256.Size {
		prev = []byte(e.PrevHash)
	}
	h.Write(prev)
	var n [8]byte
	h.Write([]byte{auditVersion})
	binary.BigEndian.PutUint64(n[:], uint64(e.Seq))
	h.Write(n[:])
	binary.BigEndian.PutUint64(n[:], uint64(e.At.UnixMicro()))
	h.Write(n[:])
	for _, s := range []string{e.TenantID, string(e.ActorKind), e.ActorID, e.ActorName, e.ActorEmail, e.Address, e.UserAgent,
		e.Action, e.ResourceType, e.ResourceID, string(e.Outcome), strconv.Itoa(e.Status), e.Detail} {
		binary.BigEndian.PutUint32(n[:4], uint32(len(s)))
		h.Write(n[:4])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Chain sets e's Seq, PrevHash and Hash as the entry after one of seq and
// hash: what a store does as it appends.
func (e *AuditEntry) Chain(seq int64, hash string) {
	e.Seq, e.PrevHash = seq+1, hash
	e.Hash = AuditHash(e)
}

// AuditBreak is the first place where the audit log is not the chain it was
// written as.
type AuditBreak struct {
	// Seq is the entry found broken (for a missing entry: the first one
	// missing).
	Seq int64
	// Problem says what is wrong, in a sentence.
	Problem string
}

func (b *AuditBreak) Error() string {
	return fmt.Sprintf("audit log broken at entry %d: %s", b.Seq, b.Problem)
}

// AuditChecker checks the entries of the audit log one by one, in Seq order
// (Check), then against the head the store keeps (Finish). The zero value
// is ready for the first entry.
type AuditChecker struct {
	// Count is the number of entries checked.
	Count int64
	seq   int64
	hash  string
}

// Check checks the next entry: its Seq follows (no entry removed, none
// reordered), its PrevHash is the Hash of the entry before (the chain is
// unbroken), and its Hash is that of its fields (it was not altered).
func (c *AuditChecker) Check(e *AuditEntry) *AuditBreak {
	if c.hash == "" {
		c.hash = GenesisAuditHash
	}
	want := c.seq + 1
	switch {
	case e.Seq > want:
		return &AuditBreak{Seq: want, Problem: missing(want, e.Seq-1, "removed")}
	case e.Seq < want:
		return &AuditBreak{Seq: e.Seq, Problem: fmt.Sprintf("entry %d comes after entry %d (reordered or duplicated)", e.Seq, c.seq)}
	case e.PrevHash != c.hash:
		return &AuditBreak{Seq: e.Seq, Problem: fmt.Sprintf("its previous hash %.12s... is not the hash %.12s... of entry %d (an entry before it was removed, replaced or reordered)",
			e.PrevHash, c.hash, c.seq)}
	case AuditHash(e) != e.Hash:
		return &AuditBreak{Seq: e.Seq, Problem: "its fields do not match its hash (altered)"}
	}
	c.Count, c.seq, c.hash = c.Count+1, e.Seq, e.Hash
	return nil
}

// Finish checks the last entry checked against the head the store keeps:
// the last entries removed leave a head past them.
func (c *AuditChecker) Finish(headSeq int64, headHash string) *AuditBreak {
	if c.hash == "" {
		c.hash = GenesisAuditHash
	}
	switch {
	case headSeq > c.seq:
		return &AuditBreak{Seq: c.seq + 1, Problem: missing(c.seq+1, headSeq, "removed from the end")}
	case headSeq < c.seq:
		return &AuditBreak{Seq: headSeq + 1, Problem: fmt.Sprintf("entries after %d were not appended through the chain's head", headSeq)}
	case headHash != c.hash:
		return &AuditBreak{Seq: c.seq, Problem: "its hash is not the one the chain's head recorded (altered or replaced)"}
	}
	return nil
}

// missing says that the entries from first to last are missing.
func missing(first, last int64, why string) string {
	if first == last {
		return fmt.Sprintf("entry %d is missing (%s)", first, why)
	}
	return fmt.Sprintf("entries %d to %d are missing (%s)", first, last, why)
}
