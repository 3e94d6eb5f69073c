package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/einvoice/einvoice/client"
)

// outcome is what one answer means for one document, to the clients.
type outcome int

const (
	// retry: no answer (the process is down, a connection was cut) or a
	// 5xx; submit again later.
	retry outcome = iota
	// pending: 202, the intent is recorded; submit again later anyway.
	pending
	// final: the service says the document went to the authority (200 with
	// its uuid, 409 DOCUMENT_ALREADY_SUBMITTED), or refused it for good.
	final
)

// judgement is an answer judged for one document.
type judgement struct {
	out  outcome
	uuid string // the uuid the service gave, with a 200 or a bulk's accepted
	// label counts the answer in the report ("202 submitting").
	label string
	// falseAnswer: an answer the service may never give for a ready
	// document (422 DOCUMENT_NOT_READY); unexpected: any other answer
	// outside 200, 202 and 409 DOCUMENT_ALREADY_SUBMITTED.
	falseAnswer, unexpected bool
	detail                  string
}

// judgeSingle judges the answer to POST /documents/{id}/submit of a ready
// document; err is the transport error, if any.
func judgeSingle(r *reply, err error) judgement {
	if err != nil {
		return judgement{out: retry, label: "no answer"}
	}
	var d client.Submission // the data of a single submit's answer
	_ = json.Unmarshal(r.Body.Data, &d)
	j := judgement{label: fmt.Sprintf("%d %s%s", r.Status, d.Status, r.Body.ErrorCode), detail: fmt.Sprintf("%d %.300s", r.Status, r.Raw)}
	switch {
	case r.Status == 200 && (d.Status == client.StatusSubmitted || d.Status == client.StatusValid) && len(d.DocumentUUID) == 26:
		j.out, j.uuid = final, d.DocumentUUID
	case r.Status == 202 && d.Status == client.StatusSubmitting:
		j.out = pending
	case r.Status == 409 && r.Body.ErrorCode == client.CodeDocumentSubmitted:
		j.out = final
	case r.Status == 422 && r.Body.ErrorCode == client.CodeDocumentNotReady:
		j.out, j.falseAnswer = final, true
	case r.Status >= 500:
		j.out, j.unexpected = retry, true
	default:
		j.out, j.unexpected = final, true
	}
	return j
}

// judgeBulk judges the answer to POST /documents/submit-bulk of ready
// documents, for each of ids.
func judgeBulk(r *reply, err error, ids []string) map[string]judgement {
	out := make(map[string]judgement, len(ids))
	whole := func(j judgement) map[string]judgement {
		for _, id := range ids {
			out[id] = j
		}
		return out
	}
	if err != nil {
		return whole(judgement{out: retry, label: "bulk: no answer"})
	}
	var d client.BulkResult // the wire format of DECISIONS section 9
	if r.Status != 200 || json.Unmarshal(r.Body.Data, &d) != nil {
		j := judgement{out: final, unexpected: true, label: fmt.Sprintf("bulk: %d %s", r.Status, r.Body.ErrorCode),
			detail: fmt.Sprintf("bulk of %d: %d %.300s", len(ids), r.Status, r.Raw)}
		if r.Status >= 500 {
			j.out = retry
		}
		return whole(j)
	}
	seen := map[string]int{}
	for _, a := range d.Accepted {
		seen[a.ID]++
		j := judgement{out: final, uuid: a.DocumentUUID, label: "bulk: accepted"}
		if len(a.DocumentUUID) != 26 {
			j.unexpected, j.detail = true, fmt.Sprintf("accepted without a uuid: %q", a.DocumentUUID)
		}
		out[a.ID] = j
	}
	for _, p := range d.Pending {
		seen[p.ID]++
		status := string(p.Status)
		j := judgement{out: pending, label: "bulk: pending " + status}
		if p.Status != client.StatusSubmitting {
			j.unexpected, j.detail = true, "pending with status "+status
		}
		out[p.ID] = j
	}
	for _, rj := range d.Rejected {
		seen[rj.ID]++
		code := rj.ErrorCode
		j := judgement{out: final, label: "bulk: rejected " + code, detail: "rejected " + code + ": " + rj.Message}
		switch code {
		case client.CodeDocumentSubmitted:
		case client.CodeDocumentNotReady:
			j.falseAnswer = true
		default:
			j.unexpected = true
		}
		out[rj.ID] = j
	}
	for _, id := range ids {
		switch seen[id] {
		case 0:
			out[id] = judgement{out: retry, unexpected: true, label: "bulk: not in the answer", detail: fmt.Sprintf("%.300s", r.Raw)}
		case 1:
		default:
			j := out[id]
			j.unexpected, j.detail = true, fmt.Sprintf("listed %d times in the answer: %.300s", seen[id], r.Raw)
			out[id] = j
		}
	}
	return out
}

// tally counts the answers the clients got and keeps the violations.
type tally struct {
	mu         sync.Mutex
	requests   int
	labels     map[string]int
	falseOnes  []string
	unexpected []string
}

func newTally() *tally { return &tally{labels: map[string]int{}} }

// note counts one judged answer for document d; mode names the way it was
// submitted (single, pair, bulk).
func (t *tally) note(mode string, d *doc, j judgement) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.labels[mode+" "+strings.TrimPrefix(j.label, "bulk: ")]++
	line := fmt.Sprintf("%s submit of %s: %s", mode, d.serial, j.detail)
	if j.falseAnswer {
		t.falseOnes = append(t.falseOnes, line)
	}
	if j.unexpected {
		t.unexpected = append(t.unexpected, line)
	}
}

// request counts one request sent.
func (t *tally) request() {
	t.mu.Lock()
	t.requests++
	t.mu.Unlock()
}

// answers returns the counts of answers, sorted by label.
func (t *tally) answers() []count {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]count, 0, len(t.labels))
	for k, v := range t.labels {
		out = append(out, count{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// count is a named count in the report.
type count struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}
