package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Violations, as the report names them. Any one fails the run.
const (
	vNotSettled = "not Valid or Invalid at the service by the deadline"
	vMissing    = "never received by the authority"
	vDuplicate  = "received more than once by the authority"
	vUUID       = "the service's uuid is not the authority's"
	vStatus     = "the service's status is not the authority's"
	vTold       = "a client was told a uuid that does not stand"
	vHash       = "sent with other bytes than the authority holds"
	vWitness    = "the witness and the authority disagree"
	vFalse      = "false answers (422 DOCUMENT_NOT_READY for a ready document)"
	vUnexpected = "unexpected answers (not 200, 202 or 409 DOCUMENT_ALREADY_SUBMITTED)"
	vStranger   = "documents at the authority or the service that are not the run's"
	vExit       = "processes that died on their own or did not stop cleanly"
	vLog        = "panics or data races in the logs"
)

// findings counts violations by kind, with a few examples of each.
type findings struct {
	Counts   map[string]int      `json:"counts"`
	Examples map[string][]string `json:"examples"`
}

func newFindings() *findings {
	return &findings{Counts: map[string]int{}, Examples: map[string][]string{}}
}

// maxExamples is how many examples of a kind the report shows.
const maxExamples = 5

// add records one violation of kind.
func (f *findings) add(kind, format string, a ...any) {
	f.Counts[kind]++
	if len(f.Examples[kind]) < maxExamples {
		f.Examples[kind] = append(f.Examples[kind], fmt.Sprintf(format, a...))
	}
}

// total is the number of violations.
func (f *findings) total() int {
	n := 0
	for _, c := range f.Counts {
		n += c
	}
	return n
}

// comparison is what the witness and the authority say of the documents.
type comparison struct {
	// ReceivedOnce counts documents the authority holds exactly once, and
	// not as a DS302 duplicate.
	ReceivedOnce int `json:"received_once"`
	// AuthorityDocs is every document the authority holds.
	AuthorityDocs int `json:"authority_docs"`
	// SentTimes counts documents by how many submissions carried them.
	SentTimes map[int]int `json:"sent_times"`
	// ServiceStatus counts the service's documents by status.
	ServiceStatus map[string]int `json:"service_status"`
}

// compare checks every document: settled at the service, held exactly
// once by the authority with the service's uuid and status, sent with the
// bytes the authority holds, told to the clients with the uuid that
// stands, and seen alike by the witness and the authority.
func compare(docs []*doc, service map[string]serviceDoc, held []heldDoc, seen map[string]*witnessed, f *findings) comparison {
	cmp := comparison{AuthorityDocs: len(held), SentTimes: map[int]int{}, ServiceStatus: map[string]int{}}
	copies := map[string][]heldDoc{} // by codeNumber, oldest first
	for _, h := range held {
		copies[h.CodeNumber] = append(copies[h.CodeNumber], h)
	}
	ours := map[string]bool{}
	for _, d := range docs {
		ours[d.serial] = true
		sd, ok := service[d.serial]
		if !ok {
			f.add(vStranger, "%s: not listed by the service", d.serial)
		}
		cmp.ServiceStatus[sd.Status]++
		w := seen[d.serial]
		if w == nil {
			w = &witnessed{}
		}
		cmp.SentTimes[w.Sends]++
		cs := copies[d.serial]
		settled := sd.Status == "Valid" || sd.Status == "Invalid"
		switch {
		case !settled:
			held := fmt.Sprintf("the authority holds %d copies", len(cs))
			if len(cs) == 0 {
				held = "the authority does not have it"
			}
			f.add(vNotSettled, "%s is %q at the service%s; sent %d times (%d unanswered), %s", d.serial, sd.Status, sd.Job, w.Sends, w.Unanswered, held)
		case len(cs) == 0:
			f.add(vMissing, "%s is %s at the service (uuid %s); sent %d times, %d unanswered", d.serial, sd.Status, sd.uuid(), w.Sends, w.Unanswered)
		}
		if len(cs) == 0 {
			continue
		}
		orig := cs[0]
		for _, c := range cs {
			if !c.Duplicate {
				orig = c
				break
			}
		}
		if len(cs) == 1 && !orig.Duplicate {
			cmp.ReceivedOnce++
		} else {
			f.add(vDuplicate, "%s: %s", d.serial, describeCopies(cs))
		}
		if settled && sd.uuid() != orig.UUID {
			f.add(vUUID, "%s: service %s %s, authority %s", d.serial, sd.Status, sd.uuid(), describeCopies(cs))
		} else if settled && sd.Status != orig.Status {
			f.add(vStatus, "%s (%s): service %s, authority %s", d.serial, orig.UUID, sd.Status, orig.Status)
		}
		for _, u := range d.toldUUIDs() {
			if u != orig.UUID {
				f.add(vTold, "%s: told %s, the authority's is %s", d.serial, u, orig.UUID)
			}
		}
		checkWitness(d.serial, w, cs, f)
	}
	for _, h := range held {
		if !ours[h.CodeNumber] {
			f.add(vStranger, "the authority holds %s (%s), not one of the run's", h.CodeNumber, h.UUID)
		}
	}
	for serial := range service {
		if !ours[serial] {
			f.add(vStranger, "the service lists %s, not one of the run's", serial)
		}
	}
	return cmp
}

// checkWitness compares the witness's record of one document with the
// authority's copies: every send carried the bytes the authority holds,
// every acceptance the witness saw is a copy the authority holds, and the
// authority holds nothing the witness never saw sent.
func checkWitness(serial string, w *witnessed, cs []heldDoc, f *findings) {
	for _, h := range w.Hashes {
		if h != cs[0].Hash {
			f.add(vHash, "%s: sent with hash %.12s, the authority holds %.12s", serial, h, cs[0].Hash)
		}
	}
	uuids := make([]string, len(cs))
	for i, c := range cs {
		uuids[i] = c.UUID
	}
	for _, u := range w.Accepted {
		if !slices.Contains(uuids, u) {
			f.add(vWitness, "%s: the witness saw %s accepted, the authority holds %v", serial, u, uuids)
		}
	}
	if w.Sends < len(cs) {
		f.add(vWitness, "%s: the authority holds %d copies, the witness saw %d sends", serial, len(cs), w.Sends)
	}
}

// describeCopies lists an authority's copies of a document.
func describeCopies(cs []heldDoc) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		dup := ""
		if c.Duplicate {
			dup = " DS302"
		}
		parts[i] = fmt.Sprintf("%s %s%s at %s", c.UUID, c.Status, dup, c.ReceivedAt.Format("15:04:05.000"))
	}
	return fmt.Sprintf("%d copies: %s", len(cs), strings.Join(parts, "; "))
}

// sortedKinds returns the kinds with violations, in a fixed order.
func (f *findings) sortedKinds() []string {
	var out []string
	for k, n := range f.Counts {
		if n > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
