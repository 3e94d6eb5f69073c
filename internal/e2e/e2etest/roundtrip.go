package e2etest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// RawData returns the data of an answer as sent, numbers and all.
func RawData(t *testing.T, r *Response) []byte {
	t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Raw, &env); err != nil || len(env.Data) == 0 {
		t.Fatalf("no data in %s", r.Raw)
	}
	return env.Data
}

// Writable decodes data (numbers as written) and drops what the service,
// not the client, sets and may change on a PUT: the given top-level keys,
// and the time of a TIN check.
func Writable(t *testing.T, data []byte, serviceSet ...string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var d map[string]any
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	delete(d, "updatedAt")
	for _, k := range serviceSet {
		delete(d, k)
	}
	if tc, ok := d["tinCheck"].(map[string]any); ok {
		delete(tc, "checkedAt")
	}
	return d
}

// RoundTrip GETs path, PUTs its data back unchanged and checks the answer
// is 200 and that the answer and a GET after it hold the same writable
// content as before.
func (c *RawClient) RoundTrip(what, path string, serviceSet ...string) {
	c.T.Helper()
	before := RawData(c.T, c.Do("GET", path, nil).Want(c.T, 200, ""))
	put := c.Do("PUT", path, before)
	if put.Status != 200 {
		c.T.Errorf("%s: PUT of what GET %s returned = %d: %s\nsent: %s", what, path, put.Status, put.Raw, before)
		return
	}
	want := Writable(c.T, before, serviceSet...)
	for _, r := range []struct {
		when string
		data []byte
	}{{"PUT", RawData(c.T, put)}, {"GET after PUT", RawData(c.T, c.Do("GET", path, nil).Want(c.T, 200, ""))}} {
		if got := Writable(c.T, r.data, serviceSet...); !reflect.DeepEqual(got, want) {
			c.T.Errorf("%s: %s changed the content:\nbefore %s\nafter  %s", what, r.when, before, r.data)
		}
	}
}
