// Command gen writes internal/refdata/zz_generated.go: the long reference
// lists (countries, currencies, unit types) that package refdata serves,
// built from maintained sources plus the deliberate differences listed below,
// so that their code sets equal the tax authority's (MyInvois) tables
// (DECISIONS.md, section 7).
//
// Run it from the repository root with
//
//	go generate ./internal/refdata/
//
// which runs `go run ./gen -o zz_generated.go` in internal/refdata. It reads
// local files only (no network); the package tests never run it, they check
// the committed output against the authority's tables.
//
// # Sources
//
// Countries and currencies come from Debian's iso-codes package (installed by
// `apt-get install iso-codes`; version 4.15.0 when last run): the alpha_3 and
// name fields of iso_3166-1.json and iso_4217.json under -iso-codes (default
// /usr/share/iso-codes/json). The version is read from -iso-codes-pc (default
// /usr/share/pkgconfig/iso-codes.pc).
//
// Unit types come from the npm package un-ece-recommendation (UN/ECE
// Recommendation N°20 and N°21 code lists as published for EN 16931
// e-invoicing; MIT; version 0.1.1 when last run), installed with
//
//	npm install -g un-ece-recommendation@0.1.1
//
// and read from -unece (default /usr/lib/node_modules/un-ece-recommendation;
// pass `-unece "$(npm root -g)/un-ece-recommendation"` where npm's global
// root differs). Its lists REC_20_3 (Rec 20 units of measure, the revision the
// authority uses) and REC_21_3 (Rec 21 package codes, prefixed "X") are read
// from dist/esm/20/3/index.js and dist/esm/21/3/index.js.
//
// # Names
//
// Names are the sources' names, with runs of white space (including the
// no-break spaces some Rec 20 names carry) collapsed to one space. The spec's
// names win for the codes the spec lists (the renames below). Where the
// authority spells a name differently (its country names are upper case,
// some of its unit names are capitalised or carry stray spaces) we keep the
// source's spelling: the authority checks codes, not names, and the tests
// compare code sets only.
//
// Every list is sorted by code (byte order).
//
// # Deliberate differences from the sources
//
// These tables are the code below (countryDiff, currencyDiff, unitDiff). The
// generator fails when one no longer applies (an added code now in the source,
// a removed or renamed code gone from it, a rename that changes nothing), so
// that a source upgrade forces a review of this list.
//
//	list        change  code  name                               why
//	countries   add     ANT   Netherlands Antilles               withdrawn from ISO 3166-1 in 2010; the authority still lists it
//	countries   add     CRM   Crimea                             not ISO 3166-1; authority addition (Jul 2025)
//	countries   add     SCT   Scotland                           not ISO 3166-1; authority addition (Jul 2025)
//	countries   add     XKX   Kosovo                             user-assigned code in common use; the authority lists it
//	currencies  add     CNH   Yuan Renminbi (Offshore)           not ISO 4217 (offshore renminbi); authority addition (May 2025)
//	currencies  remove  HRK   Kuna                               replaced by EUR on 1 Jan 2023; not in the authority's table
//	currencies  remove  XTS   Codes specifically reserved for testing purposes   reserved for testing; not in the authority's table
//	unit types  add     BOX   Box                                ours (the spec's); written to the authority as XBX
//	unit types  add     PCE   Piece (same as H87)                ours (the spec's); written to the authority as H87
//	unit types  add     HAR   hectare                            Rec 20 code missing from REC_20_3; authority addition (Apr 2026)
//	unit types  add     XSX   Set                                Rec 21 code dropped from REC_21_3 (kept in REC_21_2); the authority keeps it
//	unit types  remove  HWE   Piece Week                         in REC_20_3, not in the authority's table
//	unit types  rename  H87   piece -> Piece                     spec name
//	unit types  rename  MON   month -> Month                     spec name
//	unit types  rename  DAY   day -> Day                         spec name
//	unit types  rename  HUR   hour -> Hour                       spec name
//	unit types  rename  MIN   minute [unit of time] -> Minute    spec name
//	unit types  rename  SEC   second [unit of time] -> Second    spec name
//	unit types  rename  KGM   kilogram -> Kilogram               spec name
//	unit types  rename  GRM   gram -> Gram                       spec name
//	unit types  rename  MTR   metre -> Metre                     spec name
//	unit types  rename  CMT   centimetre -> Centimetre           spec name
//	unit types  rename  MTK   square metre -> Square Metre       spec name
//	unit types  rename  LTR   litre -> Litre                     spec name
//	unit types  rename  MLT   millilitre -> Millilitre           spec name
//	unit types  rename  MTQ   cubic metre -> Cubic Metre         spec name
//	unit types  rename  SET   set -> Set                         spec name
//	unit types  rename  PR    pair -> Pair                       spec name
//	unit types  rename  DZN   dozen -> Dozen (12 items)          spec name
//	unit types  rename  C62   one -> One (generic unit)          spec name
//
// With these, the output has 253 countries, 180 currencies and 2,164 unit
// types (the authority's 2,162 plus BOX and PCE).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// entry is one generated code and name.
type entry struct {
	Code, Name string
}

// addition is a code the source lacks and the output has.
type addition struct {
	Code, Name, Why string
}

// removal is a code the source has and the output drops.
type removal struct {
	Code, Why string
}

// rename replaces the source's name of a code.
type rename struct {
	Code, Name, Why string
}

// diff is the set of deliberate differences between a source and one
// generated list.
type diff struct {
	Add    []addition
	Remove []removal
	Rename []rename
}

const specName = "spec name"

var countryDiff = diff{
	Add: []addition{
		{"ANT", "Netherlands Antilles", "withdrawn from ISO 3166-1 in 2010; the authority still lists it"},
		{"CRM", "Crimea", "not ISO 3166-1; authority addition (Jul 2025)"},
		{"SCT", "Scotland", "not ISO 3166-1; authority addition (Jul 2025)"},
		{"XKX", "Kosovo", "user-assigned code in common use; the authority lists it"},
	},
}

var currencyDiff = diff{
	Add: []addition{
		{"CNH", "Yuan Renminbi (Offshore)", "not ISO 4217 (offshore renminbi); authority addition (May 2025)"},
	},
	Remove: []removal{
		{"HRK", "replaced by EUR on 1 Jan 2023; not in the authority's table"},
		{"XTS", "reserved for testing; not in the authority's table"},
	},
}

var unitDiff = diff{
	Add: []addition{
		{"BOX", "Box", "ours (the spec's); written to the authority as XBX"},
		{"PCE", "Piece (same as H87)", "ours (the spec's); written to the authority as H87"},
		{"HAR", "hectare", "Rec 20 code missing from REC_20_3; authority addition (Apr 2026)"},
		{"XSX", "Set", "Rec 21 code dropped from REC_21_3 (kept in REC_21_2); the authority keeps it"},
	},
	Remove: []removal{
		{"HWE", "in REC_20_3, not in the authority's table"},
	},
	Rename: []rename{
		{"H87", "Piece", specName},
		{"MON", "Month", specName},
		{"DAY", "Day", specName},
		{"HUR", "Hour", specName},
		{"MIN", "Minute", specName},
		{"SEC", "Second", specName},
		{"KGM", "Kilogram", specName},
		{"GRM", "Gram", specName},
		{"MTR", "Metre", specName},
		{"CMT", "Centimetre", specName},
		{"MTK", "Square Metre", specName},
		{"LTR", "Litre", specName},
		{"MLT", "Millilitre", specName},
		{"MTQ", "Cubic Metre", specName},
		{"SET", "Set", specName},
		{"PR", "Pair", specName},
		{"DZN", "Dozen (12 items)", specName},
		{"C62", "One (generic unit)", specName},
	},
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "refdata gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	isoDir := fs.String("iso-codes", "/usr/share/iso-codes/json", "directory of iso-codes' JSON files (Debian package iso-codes)")
	isoPC := fs.String("iso-codes-pc", "/usr/share/pkgconfig/iso-codes.pc", "iso-codes' pkg-config file, read for its version")
	uneceDir := fs.String("unece", "/usr/lib/node_modules/un-ece-recommendation", "directory of the npm package un-ece-recommendation (npm install -g un-ece-recommendation@0.1.1)")
	out := fs.String("o", "zz_generated.go", "output file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}

	isoVersion, err := pcVersion(*isoPC)
	if err != nil {
		return fmt.Errorf("iso-codes version (apt-get install iso-codes): %w", err)
	}
	countrySrc, err := readISOCodes(filepath.Join(*isoDir, "iso_3166-1.json"), "3166-1")
	if err != nil {
		return err
	}
	currencySrc, err := readISOCodes(filepath.Join(*isoDir, "iso_4217.json"), "4217")
	if err != nil {
		return err
	}

	uneceVersion, err := npmVersion(filepath.Join(*uneceDir, "package.json"))
	if err != nil {
		return fmt.Errorf("un-ece-recommendation (npm install -g un-ece-recommendation@0.1.1, or pass -unece): %w", err)
	}
	rec20, err := readJSList(filepath.Join(*uneceDir, "dist", "esm", "20", "3", "index.js"), "REC_20_3")
	if err != nil {
		return err
	}
	rec21, err := readJSList(filepath.Join(*uneceDir, "dist", "esm", "21", "3", "index.js"), "REC_21_3")
	if err != nil {
		return err
	}

	countries, err := apply(countrySrc, countryDiff)
	if err != nil {
		return fmt.Errorf("countries: %w", err)
	}
	currencies, err := apply(currencySrc, currencyDiff)
	if err != nil {
		return fmt.Errorf("currencies: %w", err)
	}
	units, err := apply(append(rec20, rec21...), unitDiff)
	if err != nil {
		return fmt.Errorf("unit types: %w", err)
	}

	src, err := render([]list{
		{
			Var:    "countryEntries",
			Doc:    fmt.Sprintf("countryEntries are the authority's ISO 3166-1 alpha-3 country codes: iso-codes %s iso_3166-1.json (alpha_3, name)", isoVersion),
			Diff:   countryDiff,
			Values: countries,
		},
		{
			Var:    "currencyEntries",
			Doc:    fmt.Sprintf("currencyEntries are the authority's ISO 4217 currency codes: iso-codes %s iso_4217.json (alpha_3, name)", isoVersion),
			Diff:   currencyDiff,
			Values: currencies,
		},
		{
			Var:    "unitTypeEntries",
			Doc:    fmt.Sprintf("unitTypeEntries are the authority's UN/ECE Recommendation 20/21 unit codes plus the spec's BOX and PCE: npm un-ece-recommendation %s REC_20_3 and REC_21_3", uneceVersion),
			Diff:   unitDiff,
			Values: units,
		},
	}, fmt.Sprintf("iso-codes %s and npm un-ece-recommendation %s", isoVersion, uneceVersion))
	if err != nil {
		return err
	}
	return os.WriteFile(*out, src, 0o644)
}

// pcVersion returns the Version field of a pkg-config file.
func pcVersion(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Version:"); ok {
			if v = strings.TrimSpace(v); v != "" {
				return v, nil
			}
		}
	}
	return "", fmt.Errorf("%s: no Version field", path)
}

// npmVersion returns the version field of an npm package.json.
func npmVersion(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if p.Version == "" {
		return "", fmt.Errorf("%s: no version", path)
	}
	return p.Version, nil
}

// readISOCodes reads the alpha_3 and name fields of the entries under key in
// one of iso-codes' JSON files.
func readISOCodes(path, key string) ([]entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("iso-codes (apt-get install iso-codes, or pass -iso-codes): %w", err)
	}
	var doc map[string][]struct {
		Alpha3 string `json:"alpha_3"`
		Name   string `json:"name"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	items, ok := doc[key]
	if !ok || len(items) == 0 {
		return nil, fmt.Errorf("%s: no %q entries", path, key)
	}
	out := make([]entry, 0, len(items))
	for _, it := range items {
		out = append(out, entry{Code: it.Alpha3, Name: it.Name})
	}
	return out, nil
}

// readJSList reads the array `export const name = [...]` from a JavaScript
// module and returns the code and name fields of its objects.
func readJSList(path, name string) ([]entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	objs, err := parseJSList(string(b), name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]entry, 0, len(objs))
	for i, o := range objs {
		if o["code"] == "" {
			return nil, fmt.Errorf("%s: %s[%d] has no code", path, name, i)
		}
		out = append(out, entry{Code: o["code"], Name: o["name"]})
	}
	return out, nil
}

// apply validates d against src and returns src with d applied, names
// normalised and entries sorted by code. It fails when a difference no longer
// applies, or when the result has a duplicate code or an empty name.
func apply(src []entry, d diff) ([]entry, error) {
	byCode := make(map[string]string, len(src))
	for _, e := range src {
		if _, dup := byCode[e.Code]; dup {
			return nil, fmt.Errorf("source has code %q twice", e.Code)
		}
		byCode[e.Code] = e.Name
	}
	var errs []error
	for _, r := range d.Remove {
		if _, ok := byCode[r.Code]; !ok {
			errs = append(errs, fmt.Errorf("removal %s: not in the source any more; drop it from the table", r.Code))
		}
		delete(byCode, r.Code)
	}
	for _, r := range d.Rename {
		old, ok := byCode[r.Code]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("rename %s: not in the source; drop it from the table or make it an addition", r.Code))
		case normalise(old) == r.Name:
			errs = append(errs, fmt.Errorf("rename %s: the source already says %q; drop it from the table", r.Code, r.Name))
		}
		byCode[r.Code] = r.Name
	}
	for _, a := range d.Add {
		if old, ok := byCode[a.Code]; ok {
			errs = append(errs, fmt.Errorf("addition %s: the source has it now (%q); drop it from the table", a.Code, old))
		}
		byCode[a.Code] = a.Name
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out := make([]entry, 0, len(byCode))
	for code, name := range byCode {
		name = normalise(name)
		if strings.TrimSpace(code) != code || code == "" {
			return nil, fmt.Errorf("bad code %q", code)
		}
		if name == "" {
			return nil, fmt.Errorf("code %s has no name", code)
		}
		out = append(out, entry{Code: code, Name: name})
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.Code, b.Code) })
	return out, nil
}

// normalise collapses runs of white space (including no-break spaces) to one
// space and trims the ends.
func normalise(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// list is one generated variable.
type list struct {
	Var, Doc string
	Diff     diff
	Values   []entry
}

// render returns the gofmt'ed Go source of the generated file.
func render(lists []list, sources string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/refdata/gen from %s; DO NOT EDIT.\n\n", sources)
	b.WriteString("// Regenerate with: go generate ./internal/refdata/\n")
	b.WriteString("// The deliberate differences from the sources are listed in gen/main.go.\n\n")
	b.WriteString("package refdata\n\n")
	for _, l := range lists {
		fmt.Fprintf(&b, "// %s.\n//\n// %d entries, sorted by code. Differences from the source: %s.\n",
			l.Doc, len(l.Values), summary(l.Diff))
		fmt.Fprintf(&b, "var %s = []Entry{\n", l.Var)
		for _, e := range l.Values {
			fmt.Fprintf(&b, "\t{%s, %s},\n", strconv.Quote(e.Code), strconv.Quote(e.Name))
		}
		b.WriteString("}\n\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gofmt generated source: %w", err)
	}
	return src, nil
}

// summary describes d in one line, e.g. "added CNH; removed HRK, XTS".
func summary(d diff) string {
	var parts []string
	if len(d.Add) > 0 {
		codes := make([]string, len(d.Add))
		for i, a := range d.Add {
			codes[i] = a.Code
		}
		parts = append(parts, "added "+strings.Join(codes, ", "))
	}
	if len(d.Remove) > 0 {
		codes := make([]string, len(d.Remove))
		for i, r := range d.Remove {
			codes[i] = r.Code
		}
		parts = append(parts, "removed "+strings.Join(codes, ", "))
	}
	if len(d.Rename) > 0 {
		codes := make([]string, len(d.Rename))
		for i, r := range d.Rename {
			codes[i] = r.Code
		}
		parts = append(parts, "renamed (spec names) "+strings.Join(codes, ", "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// parseJSList finds `const name = [` in a JavaScript module and parses the
// array literal that follows: objects whose keys are identifiers or strings
// and whose values are string literals, with optional trailing commas. That
// is the whole syntax the un-ece-recommendation modules use; anything else is
// an error rather than a guess.
func parseJSList(src, name string) ([]map[string]string, error) {
	marker := "const " + name + " ="
	i := strings.Index(src, marker)
	if i < 0 {
		return nil, fmt.Errorf("no %q", marker)
	}
	p := &jsParser{src: src, pos: i + len(marker)}
	if err := p.expect('['); err != nil {
		return nil, err
	}
	var out []map[string]string
	for {
		if p.peek() == ']' {
			p.pos++
			return out, nil
		}
		obj, err := p.object()
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
		if err := p.commaOr(']'); err != nil {
			return nil, err
		}
	}
}

type jsParser struct {
	src string
	pos int
}

// peek skips white space and returns the next byte, or 0 at the end.
func (p *jsParser) peek() byte {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *jsParser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.src[:min(p.pos, len(p.src))], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

func (p *jsParser) expect(c byte) error {
	if got := p.peek(); got != c {
		return p.errorf("want %q, got %q", c, got)
	}
	p.pos++
	return nil
}

// commaOr consumes a comma, or leaves the closing byte end for the caller.
func (p *jsParser) commaOr(end byte) error {
	switch p.peek() {
	case ',':
		p.pos++
		return nil
	case end:
		return nil
	default:
		return p.errorf("want ',' or %q, got %q", end, p.peek())
	}
}

func (p *jsParser) object() (map[string]string, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	obj := map[string]string{}
	for {
		if p.peek() == '}' {
			p.pos++
			return obj, nil
		}
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		val, err := p.str()
		if err != nil {
			return nil, err
		}
		if _, dup := obj[key]; dup {
			return nil, p.errorf("key %q twice in one object", key)
		}
		obj[key] = val
		if err := p.commaOr('}'); err != nil {
			return nil, err
		}
	}
}

func (p *jsParser) key() (string, error) {
	switch c := p.peek(); {
	case c == '"' || c == '\'':
		return p.str()
	case isIdentByte(c):
		start := p.pos
		for p.pos < len(p.src) && isIdentByte(p.src[p.pos]) {
			p.pos++
		}
		return p.src[start:p.pos], nil
	default:
		return "", p.errorf("want a key, got %q", c)
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// str parses a single- or double-quoted string literal.
func (p *jsParser) str() (string, error) {
	q := p.peek()
	if q != '"' && q != '\'' {
		return "", p.errorf("want a string literal, got %q", q)
	}
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return "", p.errorf("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == q:
			p.pos++
			return b.String(), nil
		case c == '\n':
			return "", p.errorf("newline in string")
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		// An escape sequence.
		p.pos++
		if p.pos >= len(p.src) {
			return "", p.errorf("unterminated string")
		}
		e := p.src[p.pos]
		p.pos++
		switch e {
		case '"', '\'', '\\', '/':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			r, err := p.hex(2)
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		case 'u':
			r, err := p.hex(4)
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) && strings.HasPrefix(p.src[p.pos:], `\u`) {
				p.pos += 2
				r2, err := p.hex(4)
				if err != nil {
					return "", err
				}
				r = utf16.DecodeRune(r, r2)
			}
			b.WriteRune(r)
		default:
			return "", p.errorf("unsupported escape \\%c", e)
		}
	}
}

// hex reads n hexadecimal digits.
func (p *jsParser) hex(n int) (rune, error) {
	if p.pos+n > len(p.src) {
		return 0, p.errorf("short escape")
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
	if err != nil {
		return 0, p.errorf("bad escape: %v", err)
	}
	p.pos += n
	return rune(v), nil
}
