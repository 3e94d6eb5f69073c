package documents

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/e2e/e2etest"
	"github.com/einvoice/einvoice/internal/testdb/migrated"

	"github.com/einvoice/einvoice/client"
	"github.com/einvoice/einvoice/internal/servetest"
)

// TestWalkthrough follows docs/api.md: the printed demo key, the profile, and
// a buyer created, read, changed, found, and deleted.
func TestWalkthrough(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		if svc.DemoKey == "" {
			t.Fatalf("serve printed no demo key")
		}
		ctx := t.Context()
		api := svc.API(t, svc.DemoKey)
		c := svc.Client(t, svc.DemoKey)

		prof, err := api.Profile.Get(ctx)
		e2etest.Must(t, prof, err)
		if !prof.IsReady || prof.Name != "Demo Trading Sdn. Bhd." {
			t.Errorf("demo profile = %+v, want a ready Demo Trading profile", prof)
		}
		// The secret is shown only as set: no clientSecret in the answer's JSON.
		auth := prof.Authority
		if auth.Environment != "sandbox" || !auth.HasClientSecret || strings.Contains(string(c.Do("GET", "/api/v1/profile", nil).Raw), "clientSecret\"") {
			t.Errorf("authority = %+v: want sandbox with a hidden client secret", auth)
		}

		// The walkthrough's body, with the snake_case twins id_type and id_value:
		// the answer names them in camelCase.
		created := c.Do("POST", "/api/v1/buyers", e2etest.ValidBuyer("Hebat Group Sdn. Bhd.")).Want(t, 201, "")
		b := created.Data()
		id := e2etest.Str(b["id"])
		if b["isReady"] != true || b["idType"] != "BRN" || b["idValue"] != "201901234567" || b["isDraft"] != false {
			t.Errorf("created buyer = %v", b)
		}
		if got, err := api.Buyers.Get(ctx, id); e2etest.Must(t, got, err).Name != "Hebat Group Sdn. Bhd." || got.IDType != client.IDTypeBRN || got.IDValue != "201901234567" {
			t.Errorf("GET buyer = %+v", got)
		}

		// A PUT replaces every field: the e-mail omitted becomes empty; the
		// response-only fields sent back are ignored.
		upd := e2etest.ValidBuyer("Hebat Group Berhad")
		delete(upd["contact"].(map[string]any), "email")
		upd["id"], upd["isReady"], upd["createdAt"] = "ignored", false, "2020-01-01T00:00:00Z"
		got := c.Do("PUT", "/api/v1/buyers/"+id, upd).Want(t, 200, "").Data()
		if got["name"] != "Hebat Group Berhad" || got["contact"].(map[string]any)["email"] != "" || got["id"] != id || got["createdAt"] != b["createdAt"] {
			t.Errorf("updated buyer = %v", got)
		}

		// A draft may be incomplete; it is never ready, and says why.
		draft, err := api.Buyers.Create(ctx, &client.Party{Name: "Walk-in", IsDraft: true})
		e2etest.Must(t, draft, err)
		if draft.IsReady || draft.ReadinessErrors["tin"] == nil {
			t.Errorf("draft buyer = %+v, want not ready with a tin problem", draft)
		}
		// A complete buyer with a malformed TIN is stored, but not ready.
		bad := e2etest.ReadyBuyer("Bad TIN")
		bad.TIN = "C0123"
		if got, err := api.Buyers.Create(ctx, bad); e2etest.Must(t, got, err).IsReady {
			t.Errorf("buyer with a malformed TIN is ready: %+v", got)
		}

		list, err := api.Buyers.List(ctx, &client.PartyListOptions{Search: "hebat"})
		e2etest.Must(t, list, err)
		if m := list.Meta; len(list.Items) != 1 || m.Total != 1 || m.PerPage != 15 || m.LastPage != 1 {
			t.Errorf("search hebat = %d items, meta %+v", len(list.Items), m)
		}
		all, err := api.Buyers.List(ctx, &client.PartyListOptions{ListOptions: client.ListOptions{Page: 1, PerPage: 2}})
		e2etest.Must(t, all, err)
		if len(all.Items) != 2 || all.Items[0].Name != "Bad TIN" {
			t.Errorf("newest first: page 1 = %+v", all.Items)
		}
		if m := all.Meta; m.Total != 3 || m.LastPage != 2 {
			t.Errorf("meta = %+v, want total 3, last_page 2", m)
		}
		if p, err := api.Buyers.List(ctx, &client.PartyListOptions{ListOptions: client.ListOptions{PerPage: 500}}); e2etest.Must(t, p, err).Meta.PerPage != 100 {
			t.Errorf("per_page=500 gives per_page %v, want capped at 100", p.Meta.PerPage)
		}

		// The typed Delete keeps only the outcome: the answer's data is read raw.
		del := c.Do("DELETE", "/api/v1/buyers/"+id, nil).Want(t, 200, "").Data()
		if del["id"] != id || del["deleted"] != true {
			t.Errorf("delete = %v", del)
		}
		_, err = api.Buyers.Get(ctx, id)
		e2etest.WantErr(t, err, 404, client.CodeBuyerNotFound)
		e2etest.WantErr(t, api.Buyers.Delete(ctx, id), 404, client.CodeBuyerNotFound)
	})
}

// TestSellers covers the on-behalf seller endpoints and their own fields.
func TestSellers(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		ctx := t.Context()
		api := svc.API(t, svc.DemoKey)
		body := e2etest.ReadyBuyer("Foreign Supplier Ltd")
		body.TIN, body.IDType, body.IDValue = "EI00000000030", client.IDTypePassport, "K12345678"
		body.Address = client.Address{Line1: "1 Orchard Road", City: "Singapore", State: "17", CountryCode: "SGP"}
		s, err := api.Sellers.Create(ctx, body)
		e2etest.Must(t, s, err)
		if s.IsReady || s.ReadinessErrors["msicCode"] == nil {
			t.Errorf("seller without MSIC = %+v, want not ready for msicCode", s)
		}
		body.MSICCode, body.BusinessActivityDescription, body.TourismTaxRegistrationNumber = "00000", "NOT APPLICABLE", "NA"
		id := s.ID
		s, err = api.Sellers.Update(ctx, id, body)
		e2etest.Must(t, s, err)
		if !s.IsReady || s.MSICCode != "00000" {
			t.Errorf("complete seller = %+v, want ready", s)
		}
		// Buyers and sellers are separate: the seller's id is no buyer.
		_, err = api.Buyers.Get(ctx, id)
		e2etest.WantErr(t, err, 404, client.CodeBuyerNotFound)
		got, err := api.Sellers.Get(ctx, id)
		e2etest.Must(t, got, err)
		// A buyer body has no seller fields.
		_, err = api.Buyers.Create(ctx, body)
		e2etest.WantErr(t, err, 422, client.CodeValidationFailed)
		if p, err := api.Sellers.List(ctx, &client.PartyListOptions{Search: "foreign"}); len(e2etest.Must(t, p, err).Items) != 1 {
			t.Errorf("seller search = %d items, want 1", len(p.Items))
		}
		if err := api.Sellers.Delete(ctx, id); err != nil {
			t.Errorf("delete seller: %v", err)
		}
		_, err = api.Sellers.Get(ctx, id)
		e2etest.WantErr(t, err, 404, client.CodeSellerNotFound)
	})
}

// TestBadInput sends every kind of bad request: each gets its JSON error,
// with the field at fault, and nothing changes.
func TestBadInput(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		ctx := t.Context()
		c := svc.Client(t, svc.DemoKey)
		api := svc.API(t, svc.DemoKey)
		existing, err := api.Buyers.Create(ctx, e2etest.ReadyBuyer("Existing"))
		id := e2etest.Must(t, existing, err).ID
		_, tenantB, _ := servetest.Run(t, dsn, "tenant", "create", "--name", "Other Sdn. Bhd.", "--tin", "C1234567890")
		_, keyB, _ := servetest.Run(t, dsn, "key", "create", "--tenant", strings.TrimSpace(tenantB))
		theirs, err := svc.API(t, strings.TrimSpace(keyB)).Buyers.Create(ctx, e2etest.ReadyBuyer("Theirs"))
		otherID := e2etest.Must(t, theirs, err).ID
		_, tenantA, _ := servetest.Run(t, dsn, "tenant", "list")
		demoID := strings.Fields(strings.Split(tenantA, "\n")[1])[0]
		_, roKey, _ := servetest.Run(t, dsn, "key", "create", "--tenant", demoID, "--read-only")
		_, revoked, _ := servetest.Run(t, dsn, "key", "create", "--tenant", demoID)
		_, keys, _ := servetest.Run(t, dsn, "key", "list", "--tenant", demoID)
		lastKeyID := strings.Fields(strings.Split(strings.TrimSpace(keys), "\n")[3])[0]
		if code, _, errOut := servetest.Run(t, dsn, "key", "revoke", lastKeyID); code != 0 {
			t.Fatalf("key revoke: %d %s", code, errOut)
		}

		with := func(mut func(b map[string]any)) map[string]any {
			b := e2etest.ValidBuyer("Changed")
			mut(b)
			return b
		}
		huge := append([]byte(`{"name":"`), bytes.Repeat([]byte("a"), 2<<20)...)
		huge = append(huge, `"}`...)
		cases := []struct {
			name, method, path string
			body               any
			headers            []string
			key                string
			status             int
			code               string
			field              string
		}{
			{"not JSON", "POST", "/api/v1/buyers", "name=x", nil, "", 400, "MALFORMED_JSON", ""},
			{"truncated JSON", "POST", "/api/v1/buyers", `{"name": "x", "address": {`, nil, "", 400, "MALFORMED_JSON", ""},
			{"array body", "POST", "/api/v1/buyers", `[{"name":"x"}]`, nil, "", 400, "MALFORMED_JSON", ""},
			{"two values", "POST", "/api/v1/buyers", `{"name":"x"} {}`, nil, "", 400, "MALFORMED_JSON", ""},
			{"empty body", "POST", "/api/v1/buyers", ``, nil, "", 400, "MALFORMED_JSON", ""},
			{"string for boolean", "POST", "/api/v1/buyers", with(func(b map[string]any) { b["is_draft"] = "yes" }), nil, "", 400, "MALFORMED_JSON", "is_draft"},
			{"number for string", "POST", "/api/v1/buyers", with(func(b map[string]any) { b["address"].(map[string]any)["state"] = 14 }), nil, "", 400, "MALFORMED_JSON", "address.state"},
			{"object for string", "PUT", "/api/v1/buyers/" + id, with(func(b map[string]any) { b["name"] = map[string]any{} }), nil, "", 400, "MALFORMED_JSON", "name"},
			{"unknown field", "POST", "/api/v1/buyers", with(func(b map[string]any) { b["nmae"] = "typo" }), nil, "", 422, "VALIDATION_FAILED", "nmae"},
			{"unknown nested field", "POST", "/api/v1/buyers", with(func(b map[string]any) { b["contact"].(map[string]any)["mobile"] = "1" }), nil, "", 422, "VALIDATION_FAILED", "contact.mobile"},
			{"twins disagree", "POST", "/api/v1/buyers", with(func(b map[string]any) { b["idType"] = "NRIC" }), nil, "", 422, "VALIDATION_FAILED", "id_type"},
			{"2 MiB body", "POST", "/api/v1/buyers", huge, nil, "", 413, "PAYLOAD_TOO_LARGE", ""},
			{"wrong content type", "POST", "/api/v1/buyers", `{"name":"x"}`, []string{"Content-Type", "text/plain"}, "", 415, "UNSUPPORTED_MEDIA_TYPE", ""},
			{"no content type", "PUT", "/api/v1/buyers/" + id, `{"name":"x"}`, []string{"Content-Type", ""}, "", 415, "UNSUPPORTED_MEDIA_TYPE", ""},
			{"sql-ish id", "GET", "/api/v1/buyers/1'%20OR%20'1'='1", nil, nil, "", 404, "BUYER_NOT_FOUND", ""},
			{"per_page=0", "GET", "/api/v1/buyers?per_page=0", nil, nil, "", 422, "VALIDATION_FAILED", "per_page"},
			{"per_page=abc", "GET", "/api/v1/buyers?per_page=abc", nil, nil, "", 422, "VALIDATION_FAILED", "per_page"},
			{"per_page=-5", "GET", "/api/v1/buyers?per_page=-5", nil, nil, "", 422, "VALIDATION_FAILED", "per_page"},
			{"page=-1", "GET", "/api/v1/buyers?page=-1", nil, nil, "", 422, "VALIDATION_FAILED", "page"},
			{"page=0", "GET", "/api/v1/buyers?page=0", nil, nil, "", 422, "VALIDATION_FAILED", "page"},
			{"id type not in list", "POST", "/api/v1/buyers", with(func(b map[string]any) { b["id_type"] = "SSN" }), nil, "", 422, "VALIDATION_FAILED", "id_type"},
			{"id value too long", "POST", "/api/v1/buyers", with(func(b map[string]any) { b["id_value"] = strings.Repeat("1", 51) }), nil, "", 422, "VALIDATION_FAILED", "id_value"},
			{"seller's id type not in list", "POST", "/api/v1/on-behalf-sellers", with(func(b map[string]any) { b["id_type"] = "SSN" }), nil, "", 422, "VALIDATION_FAILED", "id_type"},
			{"duplicate key", "POST", "/api/v1/buyers", `{"name": "A", "tin": "C2584563200", "name": "B"}`, nil, "", 400, "MALFORMED_JSON", "name"},
			{"duplicate nested key", "PUT", "/api/v1/buyers/" + id, `{"name": "A", "address": {"city": "X", "state": "14", "city": "Y"}}`, nil, "", 400, "MALFORMED_JSON", "address.city"},
			{"duplicate key, escaped", "POST", "/api/v1/buyers", `{"tin": "C2584563200", "t\u0069n": "C1234567890"}`, nil, "", 400, "MALFORMED_JSON", "tin"},
			{"lone surrogate", "POST", "/api/v1/buyers", `{"name": "Hebat \ud800 Group"}`, nil, "", 400, "MALFORMED_JSON", "name"},
			{"lone low surrogate in a nested value", "PUT", "/api/v1/buyers/" + id, `{"name": "x", "contact": {"name": "\udc00"}}`, nil, "", 400, "MALFORMED_JSON", "contact.name"},
			{"lone surrogate in a key", "POST", "/api/v1/buyers", `{"name": "x", "n\ud800": "y"}`, nil, "", 400, "MALFORMED_JSON", `n\ud800`},
			{"gzip body", "POST", "/api/v1/buyers", gzipped(t, e2etest.ValidBuyer("Zipped")), []string{"Content-Encoding", "gzip"}, "", 415, "UNSUPPORTED_MEDIA_TYPE", ""},
			{"plain body said gzip", "PUT", "/api/v1/buyers/" + id, e2etest.ValidBuyer("Said zipped"), []string{"Content-Encoding", "gzip"}, "", 415, "UNSUPPORTED_MEDIA_TYPE", ""},
			{"two Authorization headers", "GET", "/api/v1/buyers", nil, []string{"Authorization", "Bearer " + svc.DemoKey, "Authorization", "Bearer " + svc.DemoKey}, "", 401, "UNAUTHORIZED", ""},
			{"headers over 64 KiB", "GET", "/api/v1/buyers", nil, []string{"X-Padding", strings.Repeat("p", 64<<10)}, "", 431, "REQUEST_HEADER_FIELDS_TOO_LARGE", ""},
			{"dot-dot path", "POST", "/api/v1/invoices/../buyers", e2etest.ValidBuyer("Dotted"), nil, "", 404, "NOT_FOUND", ""},
			{"double slash", "POST", "//api/v1/buyers", e2etest.ValidBuyer("Slashed"), nil, "", 404, "NOT_FOUND", ""},
			{"invalid UTF-8", "POST", "/api/v1/buyers", []byte("{\"name\":\"\xff\xfe\"}"), nil, "", 400, "MALFORMED_JSON", ""},
			{"missing key", "GET", "/api/v1/buyers", nil, nil, "-", 401, "UNAUTHORIZED", ""},
			{"malformed auth header", "GET", "/api/v1/buyers", nil, []string{"Authorization", "Basic dXNlcjpwYXNz"}, "", 401, "UNAUTHORIZED", ""},
			{"unknown key", "GET", "/api/v1/buyers", nil, nil, "eik_" + strings.Repeat("A", 43), 401, "UNAUTHORIZED", ""},
			{"revoked key", "GET", "/api/v1/buyers", nil, nil, strings.TrimSpace(revoked), 401, "UNAUTHORIZED", ""},
			{"profile bad pkcs12", "PUT", "/api/v1/profile", map[string]any{"authority": map[string]any{"environment": "sandbox", "mode": "taxpayer", "pkcs12Base64": "%%%"}}, nil, "", 422, "VALIDATION_FAILED", "authority.pkcs12Base64"},
			{"not acceptable", "GET", "/api/v1/buyers", nil, []string{"Accept", "text/html"}, "", 406, "NOT_ACCEPTABLE", ""},
			{"unknown route", "GET", "/api/v1/nothing-here", nil, nil, "", 404, "NOT_FOUND", ""},
			{"wrong method", "PATCH", "/api/v1/buyers/" + id, nil, nil, "", 405, "METHOD_NOT_ALLOWED", ""},
		}
		// The requests a typed client can make: the same checks on its *client.Error.
		ro := svc.API(t, strings.TrimSpace(roKey))
		changed := func(mut func(p *client.Party)) *client.Party {
			p := e2etest.ReadyBuyer("Changed")
			mut(p)
			return p
		}
		noData := func(_ any, err error) error { return err }
		typed := []struct {
			name   string
			call   func() error
			status int
			code   string
			field  string
		}{
			{"malformed id", func() error { return noData(api.Buyers.Get(ctx, "not-a-uuid")) }, 404, "BUYER_NOT_FOUND", ""},
			{"foreign id get", func() error { return noData(api.Buyers.Get(ctx, otherID)) }, 404, "BUYER_NOT_FOUND", ""},
			{"foreign id put", func() error { return noData(api.Buyers.Update(ctx, otherID, e2etest.ReadyBuyer("Mine now"))) }, 404, "BUYER_NOT_FOUND", ""},
			{"foreign id delete", func() error { return api.Buyers.Delete(ctx, otherID) }, 404, "BUYER_NOT_FOUND", ""},
			{"state not in list", func() error {
				return noData(api.Buyers.Create(ctx, changed(func(p *client.Party) { p.Address.State = "99" })))
			}, 422, "VALIDATION_FAILED", "address.state"},
			{"country not in list", func() error {
				return noData(api.Buyers.Create(ctx, changed(func(p *client.Party) { p.Address.CountryCode = "XYZ" })))
			}, 422, "VALIDATION_FAILED", "address.countryCode"},
			{"camelCase id type not in list", func() error {
				return noData(api.Buyers.Update(ctx, id, changed(func(p *client.Party) { p.IDType = "SSN" })))
			}, 422, "VALIDATION_FAILED", "idType"},
			{"301-character name", func() error {
				return noData(api.Buyers.Create(ctx, changed(func(p *client.Party) { p.Name = strings.Repeat("n", 301) })))
			}, 422, "VALIDATION_FAILED", "name"},
			{"missing required", func() error { return noData(api.Buyers.Create(ctx, &client.Party{Name: "Only a name"})) }, 422, "VALIDATION_FAILED", "tin"},
			{"read-only key on a write", func() error { return noData(ro.Buyers.Create(ctx, e2etest.ReadyBuyer("Read only"))) }, 403, "FORBIDDEN", ""},
			{"read-only key on a delete", func() error { return ro.Buyers.Delete(ctx, id) }, 403, "FORBIDDEN", ""},
			{"read-only key on profile", func() error { return noData(ro.Profile.Update(ctx, &client.Profile{}, nil)) }, 403, "FORBIDDEN", ""},
			{"profile bad state", func() error {
				return noData(api.Profile.Update(ctx, &client.Profile{Address: client.Address{State: "00"}}, nil))
			}, 422, "VALIDATION_FAILED", "address.state"},
			{"profile bad environment", func() error {
				return noData(api.Profile.Update(ctx, &client.Profile{}, &client.AuthorityUpdate{Environment: "live", Mode: "taxpayer"}))
			}, 422, "VALIDATION_FAILED", "authority.environment"},
		}
		before := c.Do("GET", "/api/v1/buyers", nil).Raw
		profileBefore := c.Do("GET", "/api/v1/profile", nil).Raw
		for _, tc := range typed {
			t.Run(tc.name, func(t *testing.T) {
				e := e2etest.WantErr(t, tc.call(), tc.status, tc.code)
				var body map[string]any
				if err := json.Unmarshal(e.Body, &body); err != nil || body["success"] != false || body["message"] == "" {
					t.Errorf("error body = %s", e.Body)
				}
				if tc.field != "" {
					if _, ok := e.Fields[tc.field]; !ok {
						t.Errorf("errors = %v, want the field %q named", e.Fields, tc.field)
					}
				}
			})
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				cc := *c
				cc.T = t
				switch tc.key {
				case "":
				case "-":
					cc.Key = ""
				default:
					cc.Key = tc.key
				}
				r := cc.Do(tc.method, tc.path, tc.body, tc.headers...).Want(t, tc.status, tc.code)
				if r.Body["success"] != false || r.Body["message"] == "" {
					t.Errorf("error body = %s", r.Raw)
				}
				if tc.field != "" {
					if _, ok := r.FieldErrors()[tc.field]; !ok {
						t.Errorf("errors = %v, want the field %q named", r.FieldErrors(), tc.field)
					}
				}
				if tc.status == 415 && r.Header.Get("Accept-Encoding") != "identity" {
					t.Errorf("a 415 without Accept-Encoding: identity: %v", r.Header)
				}
				if tc.status == 401 && r.Header.Get("X-RateLimit-Limit") != "" {
					t.Errorf("a 401 carries rate-limit headers of no key")
				}
			})
		}
		if after := c.Do("GET", "/api/v1/buyers", nil).Raw; !bytes.Equal(before, after) {
			t.Errorf("bad requests changed the buyers:\nbefore %s\nafter  %s", before, after)
		}
		if after := c.Do("GET", "/api/v1/profile", nil).Raw; !bytes.Equal(profileBefore, after) {
			t.Errorf("bad requests changed the profile")
		}
	})
}

// gzipped is v as JSON, gzip-compressed.
func gzipped(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestProfile covers PUT semantics and write-only secrets. The PUTs are
// written out: omitted fields, and a secret sent blank, are their point (the
// typed client sends every field, and no blank secret).
func TestProfile(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn)
		ctx := t.Context()
		c := svc.Client(t, svc.DemoKey)
		// Without authority: the settings and secrets stay; omitted fields empty.
		p := c.Do("PUT", "/api/v1/profile", map[string]any{"name": "Renamed Sdn. Bhd.", "tin": "C2584563200"}).Want(t, 200, "").Data()
		a := p["authority"].(map[string]any)
		if p["name"] != "Renamed Sdn. Bhd." || p["msicCode"] != "" || p["isReady"] != false || a["hasClientSecret"] != true || a["environment"] != "sandbox" {
			t.Errorf("profile after partial PUT = %v", p)
		}
		// Blank secret keeps the stored one; new settings apply; the secret
		// never comes back.
		body := map[string]any{"name": "Renamed", "authority": map[string]any{
			"environment": "preprod", "mode": "intermediary", "onBehalfOf": "C1234567890", "clientId": "my-client", "clientSecret": ""}}
		r := c.Do("PUT", "/api/v1/profile", body).Want(t, 200, "")
		a = r.Data()["authority"].(map[string]any)
		if a["environment"] != "preprod" || a["mode"] != "intermediary" || a["onBehalfOf"] != "C1234567890" || a["clientId"] != "my-client" || a["hasClientSecret"] != true {
			t.Errorf("authority after PUT = %v", a)
		}
		body["authority"].(map[string]any)["clientSecret"] = "super-secret-value"
		r = c.Do("PUT", "/api/v1/profile", body).Want(t, 200, "")
		if bytes.Contains(r.Raw, []byte("super-secret-value")) || bytes.Contains(c.Do("GET", "/api/v1/profile", nil).Raw, []byte("super-secret-value")) {
			t.Errorf("the client secret was shown")
		}
		if strings.Contains(svc.Stderr.String(), "super-secret-value") || strings.Contains(svc.Stderr.String(), svc.DemoKey) {
			t.Errorf("a secret or key reached the logs")
		}
		// The typed client reads the settings back, the secret as set only.
		got, err := svc.API(t, svc.DemoKey).Profile.Get(ctx)
		e2etest.Must(t, got, err)
		if a := got.Authority; got.Name != "Renamed" || a.Environment != "preprod" || a.Mode != "intermediary" || a.OnBehalfOf != "C1234567890" ||
			a.ClientID != "my-client" || !a.HasClientSecret {
			t.Errorf("profile read back = %+v", got)
		}
	})
}

// TestReferenceData checks the eight lists through the API.
func TestReferenceData(t *testing.T) {
	t.Parallel()
	svc := e2etest.StartService(t, migrated.SQLite(t))
	ctx := t.Context()
	api := svc.API(t, svc.DemoKey)
	c := svc.Client(t, svc.DemoKey)
	codes := api.Codes
	for _, l := range []struct {
		path string
		n    int
		get  func(context.Context) ([]client.Code, error)
	}{
		{"states", 17, codes.States}, {"countries", 253, codes.Countries}, {"classifications", 22, codes.Classifications},
		{"unit-types", 2164, codes.UnitTypes}, {"tax-types", 7, codes.TaxTypes}, {"currencies", 180, codes.Currencies},
		{"payment-modes", 7, codes.PaymentModes}, {"id-types", 4, codes.IDTypes},
	} {
		items, err := l.get(ctx)
		e2etest.Must(t, items, err)
		// A list of codes is answered whole: no meta in the answer's JSON.
		r := c.Do("GET", "/api/v1/"+l.path, nil).Want(t, 200, "")
		if len(items) != l.n || r.Body["meta"] != nil {
			t.Errorf("%s: %d entries (meta %v), want %d and no meta", l.path, len(items), r.Body["meta"], l.n)
		}
	}
	taxTypes, err := codes.TaxTypes(ctx)
	if first := e2etest.Must(t, taxTypes, err)[2]; first.Code != "03" || first.Name != "Tourism Tax" {
		t.Errorf("tax type 03 = %+v", first)
	}
}

// TestOperations covers the unauthenticated endpoints and the response
// headers every answer carries.
func TestOperations(t *testing.T) {
	t.Parallel()
	svc := e2etest.StartService(t, migrated.SQLite(t))
	ctx := t.Context()
	api := svc.API(t, "")
	c := svc.Client(t, "")
	if h, err := api.Health(ctx); e2etest.Must(t, h, err).Status != "ok" {
		t.Errorf("healthz = %+v", h)
	}
	if h, err := api.Ready(ctx); e2etest.Must(t, h, err).Status != "ok" {
		t.Errorf("readyz = %+v", h)
	}
	spec, err := api.OpenAPI(ctx)
	e2etest.Must(t, spec, err)
	var doc struct {
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(spec, &doc); err != nil || doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi.json = %.100s", spec)
	}
	if page, err := api.Docs(ctx); !bytes.Contains(e2etest.Must(t, page, err), []byte("/api/v1/buyers")) {
		t.Errorf("docs page does not show the buyers routes")
	}
	// Metrics label by route pattern, never by id or key.
	_, err = svc.API(t, svc.DemoKey).Buyers.Get(ctx, "01a20120-6682-7b03-af77-86f05b09f38d")
	e2etest.WantErr(t, err, 404, client.CodeBuyerNotFound)
	metrics, err := api.Metrics(ctx)
	text := string(e2etest.Must(t, metrics, err))
	if !strings.Contains(text, `route="GET /api/v1/buyers/{id}"`) || strings.Contains(text, "01a20120-6682") || strings.Contains(text, svc.DemoKey) {
		t.Errorf("metrics do not label by route pattern only")
	}
	// The client's request id is echoed; a silly one is replaced.
	if r := c.Do("GET", "/healthz", nil, "X-Request-Id", "abc-123"); r.Header.Get("X-Request-Id") != "abc-123" {
		t.Errorf("X-Request-Id = %q, want the client's", r.Header.Get("X-Request-Id"))
	}
	if r := c.Do("GET", "/healthz", nil, "X-Request-Id", "<script>"); r.Header.Get("X-Request-Id") == "<script>" {
		t.Errorf("an unsafe request id was echoed")
	}
	if r := c.Do("GET", "/healthz", nil); r.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("no nosniff header")
	}
}

// TestRateLimit: the window opens with a key's first request; the limit
// holds per key; a 429 says when to come back. The rate-limit headers of an
// answer are read raw (the typed client keeps a success's data only).
func TestRateLimit(t *testing.T) {
	t.Parallel()
	e2etest.EachEngine(t, func(t *testing.T, dsn string) {
		svc := e2etest.StartService(t, dsn, "--rate-limit", "5")
		c := svc.Client(t, svc.DemoKey)
		for i := range 5 {
			r := c.Do("GET", "/api/v1/states", nil).Want(t, 200, "")
			if got := r.Header.Get("X-RateLimit-Remaining"); got != e2etest.Str(4-i) || r.Header.Get("X-RateLimit-Limit") != "5" || r.Header.Get("X-RateLimit-Reset") == "" {
				t.Errorf("request %d: remaining %q limit %q reset %q", i+1, got, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Reset"))
			}
		}
		r := c.Do("GET", "/api/v1/buyers", nil).Want(t, 429, "RATE_LIMIT_EXCEEDED")
		if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" || r.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("429 headers: Retry-After %q remaining %q", ra, r.Header.Get("X-RateLimit-Remaining"))
		}
		// Another key of the same tenant has its own window.
		_, tenants, _ := servetest.Run(t, dsn, "tenant", "list")
		_, key2, _ := servetest.Run(t, dsn, "key", "create", "--tenant", strings.Fields(strings.Split(tenants, "\n")[1])[0])
		states, err := svc.API(t, strings.TrimSpace(key2)).Codes.States(t.Context())
		e2etest.Must(t, states, err)
	})
}

// TestRateLimitAcrossReplicas: two serve processes on one PostgreSQL
// database share each key's window.
func TestRateLimitAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := e2etest.Engines[1].DSN(t)
	a := e2etest.StartService(t, dsn, "--rate-limit", "6")
	b := e2etest.StartService(t, dsn, "--rate-limit", "6")
	if b.DemoKey != "" {
		t.Errorf("the second replica bootstrapped a demo tenant again")
	}
	ca, cb := a.API(t, a.DemoKey), b.API(t, a.DemoKey)
	ok := 0
	for i := range 10 {
		c := ca
		if i%2 == 1 {
			c = cb
		}
		_, err := c.Codes.States(t.Context())
		var e *client.Error
		switch {
		case err == nil:
			ok++
		case errors.As(err, &e) && e.StatusCode == 429:
		default:
			t.Errorf("states: %v", err)
		}
	}
	if ok != 6 {
		t.Errorf("%d of 10 requests through two replicas allowed, want 6", ok)
	}
}

// TestRevokedKeyStops: with the key cache off, a revoked key is refused at
// once; with it on, at most the cache's TTL later.
func TestRevokedKeyStops(t *testing.T) {
	t.Parallel()
	dsn := migrated.SQLite(t)
	svc := e2etest.StartService(t, dsn, "--key-cache-ttl", "0")
	ctx := t.Context()
	_, tenants, _ := servetest.Run(t, dsn, "tenant", "list")
	tenantID := strings.Fields(strings.Split(tenants, "\n")[1])[0]
	_, key, _ := servetest.Run(t, dsn, "key", "create", "--tenant", tenantID)
	api := svc.API(t, strings.TrimSpace(key))
	p, err := api.Profile.Get(ctx)
	e2etest.Must(t, p, err)
	_, keys, _ := servetest.Run(t, dsn, "key", "list", "--tenant", tenantID)
	lines := strings.Split(strings.TrimSpace(keys), "\n")
	if code, _, errOut := servetest.Run(t, dsn, "key", "revoke", strings.Fields(lines[len(lines)-1])[0]); code != 0 {
		t.Fatalf("key revoke: %s", errOut)
	}
	_, err = api.Profile.Get(ctx)
	e2etest.WantErr(t, err, 401, client.CodeUnauthorized)
	p, err = svc.API(t, svc.DemoKey).Profile.Get(ctx)
	e2etest.Must(t, p, err)
}
