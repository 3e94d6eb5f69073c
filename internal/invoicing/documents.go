package invoicing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// editable and deletable are the statuses from which a document may be
// changed or removed.
var (
	editable  = []einvoice.Status{einvoice.StatusDraft, einvoice.StatusReady, einvoice.StatusInvalid}
	deletable = []einvoice.Status{einvoice.StatusDraft, einvoice.StatusReady}
)

func documentNotFound(id string) error {
	return einvoice.Errorf(einvoice.CodeDocumentNotFound, "No document with id %q.", id)
}

func notEditable(d *einvoice.Document, what string) error {
	return einvoice.Errorf(einvoice.CodeDocumentNotDraft, "The document is %s: only draft, ready or Invalid documents can be %s.", d.Status, what)
}

// checkParties refuses a document whose party is missing, of the wrong
// kind, or not the tenant's.
func (s *Service) checkParties(ctx context.Context, tenantID string, info einvoice.KindInfo, d *einvoice.Document, f einvoice.FieldErrors) error {
	switch {
	case info.SelfBilled:
		if d.BuyerID != "" {
			f.Add("buyerId", "a self-billed document names its supplier with onBehalfSellerId, not a buyerId")
		}
		return s.checkParty(ctx, tenantID, einvoice.KindSeller, "onBehalfSellerId", d.OnBehalfSellerID, f)
	case info.Consolidated:
		if d.BuyerID != "" {
			f.Add("buyerId", "the buyer of a consolidated invoice is the General Public, filled in by the service: leave buyerId out")
		}
	default:
		if err := s.checkParty(ctx, tenantID, einvoice.KindBuyer, "buyerId", d.BuyerID, f); err != nil {
			return err
		}
	}
	if !info.SelfBilled && d.OnBehalfSellerID != "" {
		f.Add("onBehalfSellerId", "only self-billed documents name an on-behalf seller")
	}
	return nil
}

func (s *Service) checkParty(ctx context.Context, tenantID string, kind einvoice.PartyKind, path, id string, f einvoice.FieldErrors) error {
	if id == "" {
		f.Add(path, "is required")
		return nil
	}
	_, err := s.GetParty(ctx, tenantID, kind, id)
	if einvoice.ErrorCode(err) == notFoundCode(kind) {
		f.Add(path, "no %s with this id", partyNoun(kind))
		return nil
	}
	return err
}

// prepare checks d as a create or update of the given kind would, with its
// parties, and computes its amounts when it asks for it (PrepareDocument).
func (s *Service) prepare(ctx context.Context, tenantID string, info einvoice.KindInfo, d *einvoice.Document) error {
	d.Kind, d.TypeCode, d.TenantID = info.Kind, info.TypeCode, tenantID
	d.Authority, d.Frozen = nil, nil // read-only: the lifecycle sets them
	if d.CurrencyCode == "" {
		d.CurrencyCode = "MYR"
	}
	f := einvoice.PrepareDocument(d, info)
	if err := s.checkParties(ctx, tenantID, info, d, f); err != nil {
		return err
	}
	return f.Err()
}

// storeError maps a store error of a document write.
func storeError(err error, d *einvoice.Document) error {
	switch {
	case errors.Is(err, einvoice.ErrConflict):
		return &einvoice.Error{Code: einvoice.CodeDuplicateSerial,
			Message: fmt.Sprintf("Serial number %q is already used by another document of type %s.", d.InvoiceSerialNumber, d.TypeCode),
			Fields:  einvoice.FieldErrors{"invoiceSerialNumber": {"is already used for this document type"}}}
	case errors.Is(err, einvoice.ErrNotFound):
		return einvoice.FieldErrors{"buyerId": {"the party was deleted meanwhile"}}.Err()
	}
	return err
}

// CreateDocument validates d and stores it as a new draft of the kind; it
// returns the document and its history (its creation).
func (s *Service) CreateDocument(ctx context.Context, tenantID, keyID string, kind einvoice.DocumentKind, d *einvoice.Document) (*einvoice.Document, []einvoice.Event, error) {
	info, ok := einvoice.InfoOf(kind)
	if !ok {
		return nil, nil, fmt.Errorf("unknown document kind %q", kind)
	}
	if err := s.prepare(ctx, tenantID, info, d); err != nil {
		return nil, nil, err
	}
	now := s.now()
	d.ID, d.Status, d.CreatedAt, d.UpdatedAt = s.newID(), einvoice.StatusDraft, now, now
	ev := einvoice.Event{ID: s.newID(), Status: einvoice.StatusDraft, KeyID: keyID, By: einvoice.ByOf(ctx), Note: "created", At: now}
	if err := s.store.CreateDocument(ctx, d, ev); err != nil {
		if e := storeError(err, d); e != err {
			return nil, nil, e
		}
		return nil, nil, fmt.Errorf("create document: %w", err)
	}
	return d, []einvoice.Event{ev}, nil
}

// GetDocument returns a document of the tenant with its history.
func (s *Service) GetDocument(ctx context.Context, tenantID, id string) (*einvoice.Document, []einvoice.Event, error) {
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, nil, err
	}
	h, err := s.store.DocumentHistory(ctx, tenantID, id)
	if err != nil {
		return nil, nil, fmt.Errorf("document history: %w", err)
	}
	return d, h, nil
}

func (s *Service) document(ctx context.Context, tenantID, id string) (*einvoice.Document, error) {
	if !einvoice.ValidID(id) {
		return nil, documentNotFound(id)
	}
	d, err := s.store.GetDocument(ctx, tenantID, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, documentNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("get document: %w", err)
	}
	return d, nil
}

// CheckEditable returns the document if it may be updated: the state check
// that comes before a PUT's body is read.
func (s *Service) CheckEditable(ctx context.Context, tenantID, id string) (*einvoice.Document, error) {
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if !d.Status.Editable() {
		return nil, notEditable(d, "updated")
	}
	return d, nil
}

// UpdateDocument replaces every writable field of old, the document
// CheckEditable returned, with those of d, and returns it with its history.
// The kind stays; an edit returns the document to draft. The store writes
// only if the document is still editable.
func (s *Service) UpdateDocument(ctx context.Context, keyID string, old, d *einvoice.Document) (*einvoice.Document, []einvoice.Event, error) {
	tenantID, id := old.TenantID, old.ID
	info, _ := einvoice.InfoOf(old.Kind)
	if err := s.prepare(ctx, tenantID, info, d); err != nil {
		return nil, nil, err
	}
	now := s.now()
	d.ID, d.Status, d.CreatedAt, d.UpdatedAt = old.ID, einvoice.StatusDraft, old.CreatedAt, now
	var ev *einvoice.Event
	if old.Status != einvoice.StatusDraft {
		ev = &einvoice.Event{ID: s.newID(), Status: einvoice.StatusDraft, KeyID: keyID, By: einvoice.ByOf(ctx), Note: fmt.Sprintf("edited while %s", old.Status), At: now}
	}
	err := s.store.UpdateDocument(ctx, d, editable, ev)
	switch {
	case errors.Is(err, einvoice.ErrWrongState): // changed status since CheckEditable
		cur, gerr := s.document(ctx, tenantID, id)
		if gerr != nil {
			return nil, nil, gerr
		}
		return nil, nil, notEditable(cur, "updated")
	case errors.Is(err, einvoice.ErrNotFound): // the document, or a party it names, is gone
		if _, gerr := s.document(ctx, tenantID, id); gerr != nil {
			return nil, nil, gerr
		}
		return nil, nil, storeError(err, d)
	case err != nil:
		if e := storeError(err, d); e != err {
			return nil, nil, e
		}
		return nil, nil, fmt.Errorf("update document: %w", err)
	}
	h, err := s.store.DocumentHistory(ctx, tenantID, id)
	if err != nil {
		return nil, nil, fmt.Errorf("document history: %w", err)
	}
	return d, h, nil
}

// DeleteDocument removes a draft or ready document.
func (s *Service) DeleteDocument(ctx context.Context, tenantID, id string) error {
	if !einvoice.ValidID(id) {
		return documentNotFound(id)
	}
	err := s.store.DeleteDocument(ctx, tenantID, id, deletable)
	switch {
	case errors.Is(err, einvoice.ErrNotFound):
		return documentNotFound(id)
	case errors.Is(err, einvoice.ErrWrongState):
		d, gerr := s.document(ctx, tenantID, id)
		if gerr != nil {
			return gerr
		}
		return einvoice.Errorf(einvoice.CodeDocumentNotDraft, "The document is %s: only draft or ready documents can be deleted.", d.Status)
	case err != nil:
		return fmt.Errorf("delete document: %w", err)
	}
	return nil
}

// ListDocuments returns one page of the tenant's documents; those that
// cannot be read back are left out and named in the page's Unreadable.
func (s *Service) ListDocuments(ctx context.Context, tenantID string, f einvoice.DocumentFilter) (einvoice.Page[*einvoice.Document], error) {
	page, err := s.store.ListDocuments(ctx, tenantID, f)
	if err != nil {
		return page, fmt.Errorf("list documents: %w", err)
	}
	return page, nil
}

// ListDocumentsJSON is ListDocuments with each document as its JSON
// rendering (the same bytes json.Marshal makes of the document), as the
// store keeps it: the API's list answers with them as they are.
func (s *Service) ListDocumentsJSON(ctx context.Context, tenantID string, f einvoice.DocumentFilter) (einvoice.Page[json.RawMessage], error) {
	page, err := s.store.ListDocumentsJSON(ctx, tenantID, f)
	if err != nil {
		return page, fmt.Errorf("list documents: %w", err)
	}
	return page, nil
}

// GetDocumentJSON is GetDocument with the document as its JSON rendering.
func (s *Service) GetDocumentJSON(ctx context.Context, tenantID, id string) (json.RawMessage, []einvoice.Event, error) {
	if !einvoice.ValidID(id) {
		return nil, nil, documentNotFound(id)
	}
	d, err := s.store.GetDocumentJSON(ctx, tenantID, id)
	if errors.Is(err, einvoice.ErrNotFound) {
		return nil, nil, documentNotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("get document: %w", err)
	}
	h, err := s.store.DocumentHistory(ctx, tenantID, id)
	if err != nil {
		return nil, nil, fmt.Errorf("document history: %w", err)
	}
	return d, h, nil
}

// ValidationResult is the outcome of validating a document.
type ValidationResult struct {
	Doc      *einvoice.Document
	Problems []einvoice.Problem
}

// Passed reports whether the document may be submitted.
func (r *ValidationResult) Passed() bool { return len(r.Problems) == 0 }

// ValidateDocument checks a document against the authority's rules and
// moves it to ready when it passes, to draft when it does not. A document
// that is not editable is a DOCUMENT_NOT_DRAFT.
func (s *Service) ValidateDocument(ctx context.Context, tenantID, keyID, id string) (*ValidationResult, error) {
	d, err := s.document(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if !d.Status.Editable() {
		return nil, notEditable(d, "validated")
	}
	in := einvoice.ValidationInput{Doc: d, Now: s.clock().UTC(), Referenced: map[string][]*einvoice.Document{}}
	if in.Tenant, err = s.GetTenant(ctx, tenantID); err != nil {
		return nil, err
	}
	info, _ := einvoice.InfoOf(d.Kind)
	switch {
	case info.SelfBilled && d.OnBehalfSellerID != "":
		in.Party, err = s.GetParty(ctx, tenantID, einvoice.KindSeller, d.OnBehalfSellerID)
	case !info.SelfBilled && !info.Consolidated && d.BuyerID != "":
		in.Party, err = s.GetParty(ctx, tenantID, einvoice.KindBuyer, d.BuyerID)
	}
	if err != nil {
		return nil, err
	}
	if in.Party != nil {
		if err := s.recheckTIN(ctx, in.Tenant, in.Party); err != nil {
			return nil, err
		}
	}
	for _, r := range d.References {
		if r.ReferenceNumber == "" || r.ReferenceNumber == "NA" || in.Referenced[r.ReferenceNumber] != nil {
			continue
		}
		refs, err := s.store.DocumentsBySerial(ctx, tenantID, r.ReferenceNumber)
		if err != nil {
			return nil, fmt.Errorf("referenced documents: %w", err)
		}
		found := []*einvoice.Document{}
		for _, ref := range refs {
			if ref.ID != d.ID {
				found = append(found, ref)
			}
		}
		in.Referenced[r.ReferenceNumber] = found
	}
	if info.Consolidated {
		// A consolidation's document is checked against the receipts it
		// carries (none for one assembled by hand).
		if in.Receipts, err = s.store.DocumentReceipts(ctx, tenantID, d.ID); err != nil {
			return nil, fmt.Errorf("the consolidated receipts: %w", err)
		}
	}
	if in.UBLSize, err = s.ublSize(in.Tenant, d, in.Party); err != nil {
		in.UBLSize = 0 // a document too incomplete to write: its problems say why
	}
	res := &ValidationResult{Doc: d, Problems: einvoice.ValidateDocument(in)}
	to := einvoice.StatusDraft
	if res.Passed() {
		to = einvoice.StatusReady
	}
	if to != d.Status {
		// Only the status moves, and only if nobody changed the document
		// meanwhile: a concurrent edit must not be overwritten, nor made ready
		// unvalidated.
		note := "validation passed"
		if to == einvoice.StatusDraft {
			note = "validation failed: " + pluralProblems(len(res.Problems))
		}
		ev := einvoice.Event{ID: s.newID(), Status: to, KeyID: keyID, By: einvoice.ByOf(ctx), Note: note, At: s.now()}
		err := s.store.TransitionDocument(ctx, tenantID, d.ID, d.Status, d.UpdatedAt, ev)
		switch {
		case errors.Is(err, einvoice.ErrWrongState), errors.Is(err, einvoice.ErrNotFound):
			return nil, einvoice.Errorf(einvoice.CodeDocumentNotDraft, "The document changed while it was validated; validate it again.")
		case err != nil:
			return nil, fmt.Errorf("validate: %w", err)
		}
		d.Status, d.UpdatedAt = to, ev.At
	}
	return res, nil
}

// pluralProblems says "1 problem" or "N problems".
func pluralProblems(n int) string {
	if n == 1 {
		return "1 problem"
	}
	return fmt.Sprintf("%d problems", n)
}
