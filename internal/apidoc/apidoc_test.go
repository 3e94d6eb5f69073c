package apidoc

import (
	"context"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(JSON())
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	return doc
}

func TestDocumentValidates(t *testing.T) {
	doc := load(t)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json does not validate: %v", err)
	}
	if got, want := doc.OpenAPI, "3.1.0"; got != want {
		t.Errorf("openapi = %q, want %q", got, want)
	}
	if got, want := doc.Info.Version, "1.0.0"; got != want {
		t.Errorf("info.version = %q, want %q", got, want)
	}
}

// TestOperations checks what every operation shares: /api/v1 operations
// need the bearer key and document 401, 429 and 500, the operational
// endpoints need no key, every response carries X-Request-Id, and each
// operation has one success response.
func TestOperations(t *testing.T) {
	doc := load(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			security := doc.Security
			if op.Security != nil {
				security = *op.Security
			}
			api := strings.HasPrefix(path, "/api/v1/")
			if api && len(security) == 0 {
				t.Errorf("%s %s: no security requirement", method, path)
			}
			if !api && len(security) != 0 {
				t.Errorf("%s %s: security %v, want none", method, path, security)
			}
			for code, want := range map[string]bool{"401": api, "429": api, "500": api} {
				if got := op.Responses.Value(code) != nil; got != want {
					t.Errorf("%s %s: response %s documented = %v, want %v", method, path, code, got, want)
				}
			}
			successes := 0
			for code, resp := range op.Responses.Map() {
				if resp.Value.Headers["X-Request-Id"] == nil {
					t.Errorf("%s %s: response %s does not declare X-Request-Id", method, path, code)
				}
				if len(resp.Value.Content) == 0 {
					t.Errorf("%s %s: response %s has no content", method, path, code)
				}
				if strings.HasPrefix(code, "2") {
					successes++
				}
			}
			if successes != 1 {
				t.Errorf("%s %s: %d success responses, want 1", method, path, successes)
			}
		}
	}
}

func TestHTML(t *testing.T) {
	page := string(HTML())
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || strings.Contains(page, "cannot be rendered") {
		t.Fatalf("HTML() is not the rendered page: %.300s", page)
	}
	for _, external := range []string{"<script", "<link", " src=", "url(", "@import"} {
		if strings.Contains(page, external) {
			t.Errorf("HTML() contains %q: the page must be self-contained", external)
		}
	}
	doc := load(t)
	for _, path := range doc.Paths.InMatchingOrder() {
		if !strings.Contains(page, ">"+path+"<") {
			t.Errorf("HTML() does not mention path %s", path)
		}
	}
	for name := range doc.Components.Schemas {
		if !strings.Contains(page, `id="schema-`+name+`"`) {
			t.Errorf("HTML() has no section for schema %s", name)
		}
	}
	for _, want := range []string{`<a href="#schema-BuyerInput">BuyerInput</a>`, "at most 300 characters", "Bearer eik_"} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML() does not contain %q", want)
		}
	}
	if first, second := HTML(), HTML(); &first[0] != &second[0] {
		t.Error("HTML() is rendered again on each call, want it cached")
	}
}
