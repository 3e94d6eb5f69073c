package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCompare: each way a document can go wrong is found, and only that.
func TestCompare(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	svc := func(serial, status, uuid string) serviceDoc {
		d := serviceDoc{ID: "id-" + serial, Serial: serial, Status: status}
		if uuid != "" {
			d.Authority = &struct {
				DocumentUUID string `json:"documentUuid"`
			}{uuid}
		}
		return d
	}
	var docs []*doc
	service := map[string]serviceDoc{}
	seen := map[string]*witnessed{}
	var held []heldDoc
	add := func(serial, status, uuid string, copies ...heldDoc) *doc {
		d := &doc{id: "id-" + serial, serial: serial}
		docs = append(docs, d)
		service[serial] = svc(serial, status, uuid)
		seen[serial] = &witnessed{Sends: len(copies), Hashes: []string{"h-" + serial}}
		for i := range copies {
			copies[i].CodeNumber, copies[i].Hash = serial, "h-"+serial
			copies[i].ReceivedAt = t0.Add(time.Duration(len(held)) * time.Second)
			held = append(held, copies[i])
			seen[serial].Accepted = append(seen[serial].Accepted, copies[i].UUID)
		}
		return d
	}
	add("GOOD", "Valid", "U1", heldDoc{UUID: "U1", Status: "Valid"}).tell("U1")
	add("INVALID", "Invalid", "U2", heldDoc{UUID: "U2", Status: "Invalid"})
	add("DUP", "Valid", "U3", heldDoc{UUID: "U3", Status: "Valid"}, heldDoc{UUID: "U3B", Status: "Invalid", Duplicate: true})
	add("WRONGUUID", "Invalid", "U4B", heldDoc{UUID: "U4", Status: "Valid"}, heldDoc{UUID: "U4B", Status: "Invalid", Duplicate: true})
	add("STATUS", "Invalid", "U5", heldDoc{UUID: "U5", Status: "Valid"})
	add("TOLD", "Valid", "U6", heldDoc{UUID: "U6", Status: "Valid"}).tell("U6X")
	add("STUCK", "submitting", "", heldDoc{UUID: "U7", Status: "Valid"})
	add("MISSING", "submitting", "") // not settled: reported as such only
	add("LOST", "Valid", "U10")      // the service says Valid; the authority has nothing
	add("BYTES", "Valid", "U8", heldDoc{UUID: "U8", Status: "Valid"})
	seen["BYTES"].Hashes = append(seen["BYTES"].Hashes, "other")
	held = append(held, heldDoc{UUID: "U9", CodeNumber: "NOT-OURS", Status: "Valid"})

	f := newFindings()
	got := compare(docs, service, held, seen, f)
	if got.ReceivedOnce != 6 || got.AuthorityDocs != 11 {
		t.Errorf("received once %d (want 6: GOOD, INVALID, STATUS, TOLD, STUCK, BYTES), authority holds %d (want 11)", got.ReceivedOnce, got.AuthorityDocs)
	}
	want := map[string]int{vDuplicate: 2, vUUID: 1, vStatus: 1, vTold: 1, vNotSettled: 2, vMissing: 1, vHash: 1, vStranger: 1}
	if diff := cmp.Diff(want, f.Counts); diff != "" {
		t.Errorf("violations (-want +got):\n%s\nexamples: %v", diff, f.Examples)
	}
}
