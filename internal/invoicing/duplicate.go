package invoicing

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// duplicateCode is the authority's error code for a document that
// duplicates one it holds (DS302: the same type and version, issue date and
// time, internal id and supplier TIN within two hours; reference myinvois.md
// 1.11).
const duplicateCode = "DS302"

// duplicateWindow is how far back the authority looks for the original of
// a DS302 duplicate.
const duplicateWindow = 2 * time.Hour

// maxDuplicateHops bounds how many duplicates of duplicates are followed to
// the original.
const maxDuplicateHops = 3

// authorityUUID is an authority uuid in a message: 26 upper-case letters
// and digits.
var authorityUUID = regexp.MustCompile(`\b[0-9A-Z]{26}\b`)

// duplicateOf reports whether errs (with their details) say that the
// document self is a duplicate (DS302), and returns the uuid of the
// original when a DS302 message names one: the last uuid it names other
// than self ("Duplicated submitted document with UUID <self> ... the
// document with UUID: <original>").
func duplicateOf(errs []einvoice.AuthorityError, self string) (dup bool, original string) {
	for _, e := range errs {
		if strings.EqualFold(strings.TrimSpace(e.Code), duplicateCode) {
			dup = true
			for _, u := range authorityUUID.FindAllString(e.Message, -1) {
				if u != self {
					original = u
				}
			}
		}
		if d, o := duplicateOf(e.Details, self); d {
			dup = true
			if o != "" {
				original = o
			}
		}
	}
	return dup, original
}

// settleDuplicate records, for a document d the authority found to be a
// duplicate (DS302, in dup's errors) of one it holds, what the authority
// holds: the original's uuid and verdict (Valid with its long id and
// validation time, Invalid with the original's errors, Cancelled), instead
// of Invalid as a duplicate. The original is the one the errors name
// (original), else found by a search; an original that is itself a
// duplicate is followed to its own. When no original is found (a complete
// search without one), d is Invalid as the authority says. It reports
// whether d reached a final status.
func (s *Service) settleDuplicate(ctx context.Context, creds einvoice.Credentials, d *einvoice.Document, dup einvoice.DocumentState,
	original string, j *einvoice.Job, owner string) (bool, error) {
	except := []string{dup.UUID}
	for range maxDuplicateHops {
		orig, found, err := s.original(ctx, creds, d, dup, original, except)
		if err != nil {
			return false, fmt.Errorf("find the original of a duplicate: %w", err)
		}
		if !found || (orig.CodeNumber != "" && orig.CodeNumber != d.InvoiceSerialNumber) {
			s.log.WarnContext(ctx, "a duplicate (DS302) without an original of the same document", "document_id", d.ID,
				"uuid", dup.UUID, "original", orig.UUID)
			return s.recordState(ctx, d, dup, j, owner, "")
		}
		if isInvalid(orig) {
			if again, next := duplicateOf(orig.Errors, orig.UUID); again {
				except, original = append(except, orig.UUID), next
				continue
			}
		}
		if !strings.EqualFold(orig.Status, "valid") && !isInvalid(orig) && !strings.EqualFold(orig.Status, "cancelled") {
			return false, nil // the original awaits its verdict: ask again later
		}
		s.log.InfoContext(ctx, "settled from a duplicate", "document_id", d.ID, "duplicate", dup.UUID, "original", orig.UUID, "status", orig.Status)
		if d.Authority == nil {
			d.Authority = &einvoice.AuthorityRecord{}
		}
		d.Authority.DocumentUUID, d.Authority.SubmissionUID = orig.UUID, orig.SubmissionUID
		if !orig.SubmittedAt.IsZero() {
			d.Authority.SubmittedAt = &orig.SubmittedAt
		}
		if j != nil {
			j.SubmissionUID = orig.SubmissionUID
		}
		why := fmt.Sprintf("settled from a duplicate: the authority found %s a duplicate (%s) of %s, which it holds as %s",
			dup.UUID, duplicateCode, orig.UUID, orig.Status)
		return s.recordState(ctx, d, orig, j, owner, why)
	}
	return false, errors.New("find the original of a duplicate: too many duplicates of duplicates")
}

// original reads the original of a duplicate: the document uuid names, else
// the earliest copy of d that a search finds other than those in except and
// not Invalid. found is false when a complete search found none.
func (s *Service) original(ctx context.Context, creds einvoice.Credentials, d *einvoice.Document, dup einvoice.DocumentState,
	uuid string, except []string) (state einvoice.DocumentState, found bool, err error) {
	if uuid == "" {
		// The original came before the duplicate, by at most the DS302
		// window, and after the issue time they share.
		sought := einvoice.SoughtDocument{CodeNumber: d.InvoiceSerialNumber, Except: except}
		if !dup.SubmittedAt.IsZero() {
			sought.Since = dup.SubmittedAt.Add(-duplicateWindow)
		}
		if d.Authority != nil && d.Authority.IssuedAt != nil {
			sought.IssuedAt = d.Authority.IssuedAt
			if sought.Since.IsZero() || sought.Since.Before(*d.Authority.IssuedAt) {
				sought.Since = *d.Authority.IssuedAt
			}
		}
		callCtx, cancel := context.WithTimeout(ctx, s.wait)
		res, err := s.authority.FindDocuments(callCtx, creds, []einvoice.SoughtDocument{sought})
		cancel()
		switch {
		case len(res.Matches) > 0 && len(res.Matches[0]) > 0:
			uuid = best(res.Matches[0]).UUID
		case err != nil:
			return state, false, err
		case len(res.Absent) > 0 && res.Absent[0]:
			return state, false, nil
		default:
			return state, false, errors.New("the search could not read every submission since the original may have been sent")
		}
	}
	callCtx, cancel := context.WithTimeout(ctx, s.wait)
	defer cancel()
	if state, err = s.authority.GetDocumentDetails(callCtx, creds, uuid); err != nil {
		return state, false, err
	}
	return state, true, nil
}
