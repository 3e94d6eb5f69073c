package main

import (
	"encoding/json"
	"errors"
	"testing"
)

// answer builds a reply as the service would send it.
func answer(status int, body string) *reply {
	r := &reply{Status: status, Raw: []byte(body)}
	_ = json.Unmarshal(r.Raw, &r.Body)
	return r
}

const uuid26 = "F9D425P6DS7D8IUMKB4TJ6MY10"

func TestJudgeSingle(t *testing.T) {
	for _, tc := range []struct {
		name              string
		r                 *reply
		err               error
		out               outcome
		uuid              string
		falseAns, unexpct bool
	}{
		{"no answer", nil, errors.New("connection refused"), retry, "", false, false},
		{"submitted", answer(200, `{"success":true,"data":{"status":"Submitted","document_uuid":"`+uuid26+`"}}`), nil, final, uuid26, false, false},
		{"valid already", answer(200, `{"success":true,"data":{"status":"Valid","document_uuid":"`+uuid26+`"}}`), nil, final, uuid26, false, false},
		{"200 without uuid", answer(200, `{"success":true,"data":{"status":"Submitted"}}`), nil, final, "", false, true},
		{"pending", answer(202, `{"success":true,"data":{"status":"submitting"}}`), nil, pending, "", false, false},
		{"already submitted", answer(409, `{"success":false,"error_code":"DOCUMENT_ALREADY_SUBMITTED"}`), nil, final, "", false, false},
		{"not ready", answer(422, `{"success":false,"error_code":"DOCUMENT_NOT_READY"}`), nil, final, "", true, false},
		{"rejected", answer(422, `{"success":false,"error_code":"AUTHORITY_REJECTED"}`), nil, final, "", false, true},
		{"5xx", answer(500, `{"success":false,"error_code":"INTERNAL_ERROR"}`), nil, retry, "", false, true},
		{"not JSON", answer(502, `Bad Gateway`), nil, retry, "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := judgeSingle(tc.r, tc.err)
			if j.out != tc.out || j.uuid != tc.uuid || j.falseAnswer != tc.falseAns || j.unexpected != tc.unexpct {
				t.Errorf("got %+v, want outcome %d uuid %q false %v unexpected %v", j, tc.out, tc.uuid, tc.falseAns, tc.unexpct)
			}
		})
	}
}

func TestJudgeBulk(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e", "f"}
	r := answer(200, `{"success":true,"data":{"submission_uids":["X"],
		"accepted":[{"id":"a","document_uuid":"`+uuid26+`"}],
		"pending":[{"id":"b","status":"submitting"}],
		"rejected":[{"id":"c","error_code":"DOCUMENT_ALREADY_SUBMITTED"},{"id":"d","error_code":"DOCUMENT_NOT_READY"},
			{"id":"e","error_code":"AUTHORITY_REJECTED"}]}}`)
	got := judgeBulk(r, nil, ids)
	want := map[string]struct {
		out               outcome
		falseAns, unexpct bool
	}{
		"a": {final, false, false}, "b": {pending, false, false}, "c": {final, false, false},
		"d": {final, true, false}, "e": {final, false, true}, "f": {retry, false, true}, // f: not in the answer
	}
	for id, w := range want {
		j := got[id]
		if j.out != w.out || j.falseAnswer != w.falseAns || j.unexpected != w.unexpct {
			t.Errorf("%s: got %+v, want %+v", id, j, w)
		}
	}
	if got["a"].uuid != uuid26 {
		t.Errorf("a: uuid %q", got["a"].uuid)
	}
	for id, j := range judgeBulk(nil, errors.New("EOF"), ids) {
		if j.out != retry || j.unexpected {
			t.Errorf("no answer, %s: %+v", id, j)
		}
	}
	for id, j := range judgeBulk(answer(503, `{}`), nil, ids) {
		if j.out != retry || !j.unexpected {
			t.Errorf("503, %s: %+v", id, j)
		}
	}
	twice := answer(200, `{"success":true,"data":{"accepted":[{"id":"a","document_uuid":"`+uuid26+`"}],"pending":[{"id":"a","status":"submitting"}]}}`)
	if j := judgeBulk(twice, nil, []string{"a"})["a"]; !j.unexpected {
		t.Errorf("listed twice: %+v, want unexpected", j)
	}
}
