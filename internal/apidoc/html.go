package apidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The subset of OpenAPI that the page shows, read with encoding/json so that
// the service itself does not depend on an OpenAPI library. Maps whose order
// matters to a reader (paths, properties, responses) keep the document's.

type document struct {
	Info struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description"`
	} `json:"info"`
	Tags []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tags"`
	Security   []map[string][]string `json:"security"`
	Paths      ordered[*pathItem]    `json:"paths"`
	Components struct {
		Schemas         ordered[*schema]         `json:"schemas"`
		Responses       ordered[*response]       `json:"responses"`
		Parameters      ordered[*parameter]      `json:"parameters"`
		Headers         ordered[*header]         `json:"headers"`
		SecuritySchemes ordered[*securityScheme] `json:"securitySchemes"`
	} `json:"components"`
}

type pathItem struct {
	Parameters []*parameter `json:"parameters"`
	Get        *operation   `json:"get"`
	Post       *operation   `json:"post"`
	Put        *operation   `json:"put"`
	Patch      *operation   `json:"patch"`
	Delete     *operation   `json:"delete"`
}

type operation struct {
	Tags        []string               `json:"tags"`
	Summary     string                 `json:"summary"`
	Description string                 `json:"description"`
	OperationID string                 `json:"operationId"`
	Parameters  []*parameter           `json:"parameters"`
	RequestBody *requestBody           `json:"requestBody"`
	Responses   ordered[*response]     `json:"responses"`
	Security    *[]map[string][]string `json:"security"`
}

type parameter struct {
	Ref         string  `json:"$ref"`
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Schema      *schema `json:"schema"`
}

type requestBody struct {
	Description string              `json:"description"`
	Required    bool                `json:"required"`
	Content     ordered[*mediaType] `json:"content"`
}

type mediaType struct {
	Schema *schema `json:"schema"`
}

type response struct {
	Ref         string              `json:"$ref"`
	Description string              `json:"description"`
	Headers     ordered[*header]    `json:"headers"`
	Content     ordered[*mediaType] `json:"content"`
}

type header struct {
	Description string  `json:"description"`
	Schema      *schema `json:"schema"`
}

type securityScheme struct {
	Type        string `json:"type"`
	Scheme      string `json:"scheme"`
	Description string `json:"description"`
}

type schema struct {
	Ref                  string            `json:"$ref"`
	Type                 json.RawMessage   `json:"type"`
	Format               string            `json:"format"`
	Description          string            `json:"description"`
	Properties           ordered[*schema]  `json:"properties"`
	Required             []string          `json:"required"`
	Items                *schema           `json:"items"`
	AdditionalProperties json.RawMessage   `json:"additionalProperties"`
	Enum                 []json.RawMessage `json:"enum"`
	Const                json.RawMessage   `json:"const"`
	Default              json.RawMessage   `json:"default"`
	Pattern              string            `json:"pattern"`
	MaxLength            *int              `json:"maxLength"`
	Minimum              *float64          `json:"minimum"`
	Maximum              *float64          `json:"maximum"`
	WriteOnly            bool              `json:"writeOnly"`
	ContentEncoding      string            `json:"contentEncoding"`
}

// ordered is a JSON object that keeps the order of its keys.
type ordered[T any] []entry[T]

type entry[T any] struct {
	Key   string
	Value T
}

func (o *ordered[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil {
		return err
	} else if t != json.Delim('{') {
		return fmt.Errorf("want a JSON object, got %v", t)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%v: %w", t, err)
		}
		*o = append(*o, entry[T]{Key: t.(string), Value: v})
	}
	return nil
}

func (o ordered[T]) get(key string) (T, bool) {
	for _, e := range o {
		if e.Key == key {
			return e.Value, true
		}
	}
	var zero T
	return zero, false
}

// refName is the last segment of a local reference ("#/components/schemas/Buyer" -> "Buyer").
func refName(ref string) string { return ref[strings.LastIndexByte(ref, '/')+1:] }

// The view the template renders.

type page struct {
	Title, Version string
	Description    template.HTML
	Auth           []namedText
	Groups         []group
	Schemas        []schemaView
	Headers        []propView
}

type namedText struct {
	Name string
	Text template.HTML
}

type group struct {
	Anchor      string
	Name        string
	Description template.HTML
	Ops         []opView
}

type opView struct {
	Anchor, Method, Path, Summary string
	Description                   template.HTML
	Auth                          string
	Params                        []propView
	Body                          *bodyView
	Responses                     []responseView
}

type bodyView struct {
	Description template.HTML
	Required    bool
	Content     []contentView
}

type contentView struct {
	Type   string
	Schema template.HTML
}

type responseView struct {
	Status      string
	Description template.HTML
	Headers     []string
	Content     []contentView
}

type propView struct {
	Name, In    string
	Type        template.HTML
	Required    bool
	Description template.HTML
	Constraints string
}

type schemaView struct {
	Name        string
	Description template.HTML
	Type        template.HTML
	Constraints string
	Props       []propView
}

// render returns the HTML page of the document src, or a page naming the
// error when src cannot be read (the package test keeps that from happening).
func render(src []byte) []byte {
	var d document
	var buf bytes.Buffer
	err := json.Unmarshal(src, &d)
	if err == nil {
		err = pageTemplate.Execute(&buf, d.view())
	}
	if err != nil {
		buf.Reset()
		fmt.Fprintf(&buf, "<!DOCTYPE html><title>API reference</title><p>The API document cannot be rendered: %s. See <a href=\"/openapi.json\">/openapi.json</a>.</p>\n",
			html.EscapeString(err.Error()))
	}
	return buf.Bytes()
}

func (d *document) view() page {
	p := page{Title: d.Info.Title, Version: d.Info.Version, Description: markdown(d.Info.Description)}
	for _, e := range d.Components.SecuritySchemes {
		p.Auth = append(p.Auth, namedText{e.Key, markdown(fmt.Sprintf("%s %s. %s", e.Value.Type, e.Value.Scheme, e.Value.Description))})
	}
	groups := map[string]*group{}
	var order []string
	for _, t := range d.Tags {
		groups[t.Name] = &group{Anchor: slug(t.Name), Name: t.Name, Description: markdown(t.Description)}
		order = append(order, t.Name)
	}
	for _, pe := range d.Paths {
		item := pe.Value
		for _, m := range []struct {
			name string
			op   *operation
		}{{"GET", item.Get}, {"POST", item.Post}, {"PUT", item.Put}, {"PATCH", item.Patch}, {"DELETE", item.Delete}} {
			if m.op == nil {
				continue
			}
			tag := "Other"
			if len(m.op.Tags) > 0 {
				tag = m.op.Tags[0]
			}
			g := groups[tag]
			if g == nil {
				g = &group{Anchor: slug(tag), Name: tag}
				groups[tag] = g
				order = append(order, tag)
			}
			g.Ops = append(g.Ops, d.opView(m.name, pe.Key, item, m.op))
		}
	}
	for _, name := range order {
		if g := groups[name]; len(g.Ops) > 0 {
			p.Groups = append(p.Groups, *g)
		}
	}
	for _, e := range d.Components.Schemas {
		s := e.Value
		sv := schemaView{Name: e.Key, Description: markdown(s.Description), Type: typeHTML(s), Constraints: constraints(s)}
		sv.Props = d.props(s)
		p.Schemas = append(p.Schemas, sv)
	}
	for _, e := range d.Components.Headers {
		p.Headers = append(p.Headers, propView{Name: e.Key, Type: typeHTML(e.Value.Schema), Description: markdown(e.Value.Description), Constraints: constraints(e.Value.Schema)})
	}
	return p
}

func (d *document) opView(method, path string, item *pathItem, op *operation) opView {
	anchor := op.OperationID
	if anchor == "" {
		anchor = slug(method + path)
	}
	v := opView{Anchor: "op-" + anchor, Method: method, Path: path, Summary: op.Summary, Description: markdown(op.Description)}
	security := d.Security
	if op.Security != nil {
		security = *op.Security
	}
	var schemes []string
	for _, req := range security {
		for name := range req {
			schemes = append(schemes, name)
		}
	}
	sort.Strings(schemes)
	v.Auth = "none"
	if len(schemes) > 0 {
		v.Auth = strings.Join(schemes, " or ")
	}
	for _, prm := range append(append([]*parameter(nil), item.Parameters...), op.Parameters...) {
		if prm.Ref != "" {
			if r, ok := d.Components.Parameters.get(refName(prm.Ref)); ok {
				prm = r
			}
		}
		v.Params = append(v.Params, propView{Name: prm.Name, In: prm.In, Type: typeHTML(prm.Schema), Required: prm.Required,
			Description: markdown(prm.Description), Constraints: constraints(prm.Schema)})
	}
	if rb := op.RequestBody; rb != nil {
		v.Body = &bodyView{Description: markdown(rb.Description), Required: rb.Required, Content: contents(rb.Content)}
	}
	for _, e := range op.Responses {
		r := e.Value
		if r.Ref != "" {
			if c, ok := d.Components.Responses.get(refName(r.Ref)); ok {
				r = c
			}
		}
		rv := responseView{Status: e.Key, Description: markdown(r.Description), Content: contents(r.Content)}
		for _, h := range r.Headers {
			rv.Headers = append(rv.Headers, h.Key)
		}
		v.Responses = append(v.Responses, rv)
	}
	return v
}

// slug makes an HTML id of s: lower-case letters, digits and dashes.
func slug(s string) string {
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

func contents(c ordered[*mediaType]) []contentView {
	var out []contentView
	for _, e := range c {
		cv := contentView{Type: e.Key}
		if e.Value != nil && e.Value.Schema != nil {
			cv.Schema = typeHTML(e.Value.Schema)
		}
		out = append(out, cv)
	}
	return out
}

// props lists the properties of an object schema; a property that is only a
// reference takes the referenced schema's description when it has none.
func (d *document) props(s *schema) []propView {
	var out []propView
	for _, e := range s.Properties {
		ps := e.Value
		desc := ps.Description
		if desc == "" && ps.Ref != "" {
			if r, ok := d.Components.Schemas.get(refName(ps.Ref)); ok {
				desc = r.Description
			}
		}
		out = append(out, propView{Name: e.Key, Type: typeHTML(ps), Required: contains(s.Required, e.Key),
			Description: markdown(desc), Constraints: constraints(ps)})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// typeHTML describes the type of s, linking referenced schemas to their section.
func typeHTML(s *schema) template.HTML {
	if s == nil {
		return "any"
	}
	if s.Ref != "" {
		name := html.EscapeString(refName(s.Ref))
		return template.HTML(`<a href="#schema-` + name + `">` + name + `</a>`)
	}
	t := "any"
	if len(s.Type) > 0 {
		var one string
		var many []string
		if json.Unmarshal(s.Type, &one) == nil {
			t = one
		} else if json.Unmarshal(s.Type, &many) == nil {
			t = strings.Join(many, " | ")
		}
	}
	switch {
	case t == "array":
		return "array of " + typeHTML(s.Items)
	case t == "object" && len(s.Properties) == 0 && len(s.AdditionalProperties) > 0 && s.AdditionalProperties[0] == '{':
		var ap schema
		if json.Unmarshal(s.AdditionalProperties, &ap) == nil {
			return "map of string to " + typeHTML(&ap)
		}
	}
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	return template.HTML(html.EscapeString(t))
}

// constraints lists the validation keywords of s in words.
func constraints(s *schema) string {
	if s == nil {
		return ""
	}
	var out []string
	if len(s.Const) > 0 {
		out = append(out, "always "+string(s.Const))
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = string(v)
		}
		out = append(out, "one of "+strings.Join(vals, ", "))
	}
	if s.MaxLength != nil {
		out = append(out, "at most "+strconv.Itoa(*s.MaxLength)+" characters")
	}
	if s.Minimum != nil {
		out = append(out, "minimum "+strconv.FormatFloat(*s.Minimum, 'f', -1, 64))
	}
	if s.Maximum != nil {
		out = append(out, "maximum "+strconv.FormatFloat(*s.Maximum, 'f', -1, 64))
	}
	if len(s.Default) > 0 {
		out = append(out, "default "+string(s.Default))
	}
	if s.Pattern != "" {
		out = append(out, "pattern "+s.Pattern)
	}
	if s.ContentEncoding != "" {
		out = append(out, s.ContentEncoding+" encoded")
	}
	if s.WriteOnly {
		out = append(out, "write-only")
	}
	if string(s.AdditionalProperties) == "false" && len(s.Properties) > 0 {
		out = append(out, "no other properties")
	}
	return strings.Join(out, "; ")
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// markdown renders the little Markdown the document uses: "## " headings,
// blocks indented by four spaces (preformatted), paragraphs and `code`.
func markdown(s string) template.HTML {
	var b strings.Builder
	for _, block := range strings.Split(strings.TrimSpace(s), "\n\n") {
		block = strings.Trim(block, "\n")
		if block == "" {
			continue
		}
		lines := strings.Split(block, "\n")
		if strings.HasPrefix(lines[0], "    ") {
			b.WriteString("<pre>")
			for _, l := range lines {
				b.WriteString(html.EscapeString(strings.TrimPrefix(l, "    ")) + "\n")
			}
			b.WriteString("</pre>\n")
			continue
		}
		if h, ok := strings.CutPrefix(lines[0], "## "); ok {
			b.WriteString("<h3>" + html.EscapeString(h) + "</h3>\n")
			lines = lines[1:]
			if len(lines) == 0 {
				continue
			}
		}
		text := codeSpan.ReplaceAllString(html.EscapeString(strings.Join(lines, "\n")), "<code>$1</code>")
		b.WriteString("<p>" + text + "</p>\n")
	}
	return template.HTML(b.String())
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}}</title>
<style>
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d232a; margin: 0; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
nav { font-size: 0.9em; columns: 2 20rem; background: #f4f6f8; padding: 0.5rem 1rem; border-radius: 6px; }
nav ul { margin: 0.2rem 0 0.6rem; padding-left: 1.2rem; }
h1 { margin-bottom: 0; } h2 { border-bottom: 2px solid #d8dee4; margin-top: 2.5rem; }
h3 { margin-bottom: 0.2rem; }
code, pre, .path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; }
code { background: #eef1f4; padding: 0 0.2em; border-radius: 3px; }
pre { background: #f4f6f8; padding: 0.6rem 0.8rem; overflow-x: auto; border-radius: 6px; }
p { white-space: pre-line; margin: 0.3rem 0 0.6rem; }
section.op { border: 1px solid #d8dee4; border-radius: 6px; padding: 0.4rem 1rem 0.8rem; margin: 1rem 0; }
.method { display: inline-block; min-width: 4.2em; text-align: center; font-weight: bold; color: #fff; border-radius: 4px; padding: 0 0.4em; margin-right: 0.4em; }
.GET { background: #1f6feb; } .POST { background: #1a7f37; } .PUT { background: #9a6700; } .PATCH { background: #8250df; } .DELETE { background: #cf222e; }
table { border-collapse: collapse; width: 100%; margin: 0.3rem 0 0.8rem; font-size: 0.93em; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid #e4e8ec; padding: 0.25rem 0.5rem; }
td p { margin: 0; }
.req { color: #cf222e; font-size: 0.85em; }
.muted { color: #57606a; font-size: 0.9em; }
a { color: #0969da; }
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<div class="muted">Version {{.Version}} · <a href="/openapi.json">OpenAPI document (JSON)</a></div>
{{.Description}}
<h2 id="auth">Authentication</h2>
{{range .Auth}}<h3>{{.Name}}</h3>{{.Text}}{{end}}
<h2 id="contents">Operations</h2>
<nav>{{range .Groups}}<strong>{{.Name}}</strong><ul>{{range .Ops}}<li><a href="#{{.Anchor}}">{{.Method}} {{.Path}}</a></li>{{end}}</ul>{{end}}</nav>
{{range .Groups}}
<h2 id="tag-{{.Anchor}}">{{.Name}}</h2>
{{.Description}}
{{range .Ops}}
<section class="op" id="{{.Anchor}}">
<h3><span class="method {{.Method}}">{{.Method}}</span><span class="path">{{.Path}}</span></h3>
<div><strong>{{.Summary}}</strong> <span class="muted">· auth: {{.Auth}}</span></div>
{{.Description}}
{{if .Params}}<h4>Parameters</h4>
<table><tr><th>Name</th><th>In</th><th>Type</th><th>Description</th></tr>
{{range .Params}}<tr><td><code>{{.Name}}</code>{{if .Required}} <span class="req">required</span>{{end}}</td><td>{{.In}}</td><td>{{.Type}}</td><td>{{.Description}}{{if .Constraints}}<div class="muted">{{.Constraints}}</div>{{end}}</td></tr>
{{end}}</table>{{end}}
{{with .Body}}<h4>Request body{{if .Required}} <span class="req">required</span>{{end}}</h4>
{{.Description}}
<table>{{range .Content}}<tr><td><code>{{.Type}}</code></td><td>{{.Schema}}</td></tr>{{end}}</table>{{end}}
<h4>Responses</h4>
<table><tr><th>Status</th><th>Description</th><th>Body</th><th>Headers</th></tr>
{{range .Responses}}<tr><td><strong>{{.Status}}</strong></td><td>{{.Description}}</td><td>{{range .Content}}<code>{{.Type}}</code>{{if .Schema}}: {{.Schema}}{{end}}<br>{{end}}</td><td class="muted">{{range $i, $h := .Headers}}{{if $i}}, {{end}}<a href="#header-{{$h}}">{{$h}}</a>{{end}}</td></tr>
{{end}}</table>
</section>
{{end}}{{end}}
<h2 id="schemas">Schemas</h2>
{{range .Schemas}}
<section id="schema-{{.Name}}">
<h3>{{.Name}} <span class="muted">{{.Type}}</span></h3>
{{.Description}}
{{if .Constraints}}<div class="muted">{{.Constraints}}</div>{{end}}
{{if .Props}}<table><tr><th>Property</th><th>Type</th><th>Description</th></tr>
{{range .Props}}<tr><td><code>{{.Name}}</code>{{if .Required}} <span class="req">required</span>{{end}}</td><td>{{.Type}}</td><td>{{.Description}}{{if .Constraints}}<div class="muted">{{.Constraints}}</div>{{end}}</td></tr>
{{end}}</table>{{end}}
</section>
{{end}}
<h2 id="headers">Response headers</h2>
<table><tr><th>Header</th><th>Type</th><th>Description</th></tr>
{{range .Headers}}<tr id="header-{{.Name}}"><td><code>{{.Name}}</code></td><td>{{.Type}}</td><td>{{.Description}}</td></tr>
{{end}}</table>
</main>
</body>
</html>
`))
