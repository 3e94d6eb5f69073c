// Package apidoc holds the hand-written OpenAPI 3.1 document of the API
// (openapi.json, served as is at /openapi.json) and renders it as a
// self-contained HTML page (served at /docs).
//
// The document is the contract: the server's integration tests validate
// every response against it (see package apidoctest). Edit openapi.json by
// hand, keep it true to what the server does, and run
// `go test ./internal/apidoc/...`.
package apidoc

import (
	_ "embed"
	"sync"
)

//go:embed openapi.json
var spec []byte

// JSON returns the OpenAPI document. The slice is shared: do not modify it.
func JSON() []byte { return spec }

var renderHTML = sync.OnceValue(func() []byte { return render(spec) })

// HTML returns a readable, self-contained HTML page of the document (no
// scripts, no external resources). It is rendered once and cached; the slice
// is shared: do not modify it.
func HTML() []byte { return renderHTML() }
