package myinvois

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/einvoice/einvoice/internal/einvoice"
)

var (
	// ErrTooLarge is wrapped by Submit (and Split) when documents exceed the
	// authority's limits: more than MaxDocuments documents, a document over
	// MaxDocumentSize bytes or a request body over MaxSubmissionSize bytes.
	// Nothing was sent.
	ErrTooLarge = einvoice.ErrTooLarge
	// ErrCredentials is wrapped when Credentials cannot be used (no BaseURL,
	// ClientID or ClientSecret, or a BaseURL that is not an absolute http(s)
	// URL). Nothing was sent.
	ErrCredentials = errors.New("unusable authority credentials")
	// ErrThrottled is the Err of the *einvoice.CallError (Status 429,
	// NotSent, with RetryAfter) returned when the endpoint's next slot in
	// the rate budget lies further away than Options.MaxBudgetWait or the
	// context's deadline. Nothing was sent, and the slot was not taken.
	ErrThrottled = errors.New("not sent: the authority's rate budget has no slot soon enough")
	// ErrNotSent is wrapped with the context's error when the context ended
	// while the call waited for its rate budget or for a login shared with
	// other callers, before its request was sent; and with the budget's
	// error when the budget could not be read.
	ErrNotSent = errors.New("not sent")
)

// flexString decodes a JSON string, number or boolean as text and null, an
// object or an array as "" (the authority's fields are not always typed the
// same way).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || b[0] == 'n' || b[0] == '{' || b[0] == '[':
		*f = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	default:
		*f = flexString(b)
	}
	return nil
}

// flexList decodes a JSON array, a single object (a list of one) or null.
type flexList[T any] []T

func (l *flexList[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || b[0] == 'n':
		*l = nil
		return nil
	case b[0] == '{':
		var one T
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*l = flexList[T]{one}
		return nil
	case b[0] == '[':
		var many []T
		if err := json.Unmarshal(b, &many); err != nil {
			return err
		}
		*l = many
		return nil
	default:
		*l = nil // a string or a number where a list was expected: ignore it
		return nil
	}
}

// wireError holds both of the authority's error shapes: {code, message,
// target, details} and {errorCode, error, errorMS/errorMs, propertyName,
// propertyPath, innerError}.
type wireError struct {
	Code         flexString           `json:"code"`
	Message      flexString           `json:"message"`
	Target       flexString           `json:"target"`
	Details      flexList[wireError]  `json:"details"`
	ErrorCode    flexString           `json:"errorCode"`
	Error        flexString           `json:"error"`
	ErrorMS      flexString           `json:"errorMS"` // also errorMs: keys match without regard to case
	PropertyName flexString           `json:"propertyName"`
	PropertyPath flexString           `json:"propertyPath"`
	InnerError   flexList[wireError]  `json:"innerError"`
	Title        flexString           `json:"title"`  // RFC 7807 problem details
	Detail       flexString           `json:"detail"` // RFC 7807 problem details
	Errors       map[string]flexField `json:"errors"` // RFC 7807 validation problems
}

// flexField is a list of messages or a single one (problem details' errors).
type flexField []string

func (f *flexField) UnmarshalJSON(b []byte) error {
	var many []string
	if err := json.Unmarshal(b, &many); err == nil {
		*f = many
		return nil
	}
	var one flexString
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*f = flexField{string(one)}
	return nil
}

// fold turns either shape into an einvoice.AuthorityError: Code is code or
// errorCode, Message is message, error or errorMS (English first), Target is
// target or propertyName, and Details are details followed by innerError.
func (w wireError) fold() einvoice.AuthorityError {
	e := einvoice.AuthorityError{
		Code:         string(cmp.Or(w.Code, w.ErrorCode)),
		Message:      string(cmp.Or(w.Message, w.Error, w.ErrorMS, w.Title, w.Detail)),
		Target:       string(cmp.Or(w.Target, w.PropertyName)),
		PropertyPath: string(w.PropertyPath),
	}
	for _, d := range w.Details {
		e.Details = append(e.Details, d.fold())
	}
	for _, d := range w.InnerError {
		e.Details = append(e.Details, d.fold())
	}
	for _, field := range sortedKeys(w.Errors) {
		for _, msg := range w.Errors[field] {
			e.Details = append(e.Details, einvoice.AuthorityError{Target: field, Message: msg})
		}
	}
	return e
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func isEmpty(e einvoice.AuthorityError) bool {
	return e.Code == "" && e.Message == "" && e.Target == "" && e.PropertyPath == "" && len(e.Details) == 0
}

// decodeErrorBody reads an error answer: {"error": {either shape}}, the
// token endpoint's {"error": "...", "error_description": "..."}, a bare
// error object, or RFC 7807 problem details. ok is false when the body is not
// JSON or carries none of these.
func decodeErrorBody(b []byte) (e einvoice.AuthorityError, ok bool) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(b, &env); err != nil {
		return e, false
	}
	if raw := lookup(env, "error"); len(raw) > 0 {
		switch raw[0] {
		case '{':
			var w wireError
			if err := json.Unmarshal(raw, &w); err == nil {
				e = w.fold()
			}
		case '"':
			if lookup(env, "errorCode") != nil {
				break // a bare {errorCode, error} object, read below
			}
			var code, desc flexString
			_ = json.Unmarshal(raw, &code)
			_ = json.Unmarshal(lookup(env, "error_description"), &desc)
			e = einvoice.AuthorityError{Code: string(code), Message: string(desc)}
		}
		if !isEmpty(e) {
			return e, true
		}
	}
	var w wireError
	if err := json.Unmarshal(b, &w); err == nil {
		e = w.fold()
	}
	return e, !isEmpty(e)
}

// lookup returns env[key], matching the key case-insensitively, or nil for
// an absent or null value.
func lookup(env map[string]json.RawMessage, key string) json.RawMessage {
	raw, ok := env[key]
	if !ok {
		for k, v := range env {
			if strings.EqualFold(k, key) {
				raw, ok = v, true
				break
			}
		}
	}
	raw = bytes.TrimSpace(raw)
	if !ok || len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// callError builds the CallError of a non-2xx answer.
func callError(op string, a answer, now time.Time) *einvoice.CallError {
	ce := &einvoice.CallError{Op: op, Status: a.status, RetryAfter: retryAfter(a.header, a.status, now)}
	if len(bytes.TrimSpace(a.body)) == 0 {
		return ce
	}
	if body, ok := decodeErrorBody(a.body); ok {
		ce.Body = body
		return ce
	}
	ce.Err = fmt.Errorf("unexpected answer (%s): %q", contentType(a.header), snippet(a.body))
	return ce
}

func contentType(h http.Header) string {
	if ct := h.Get("Content-Type"); ct != "" {
		return ct
	}
	return "no content type"
}

var (
	titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	tagRE   = regexp.MustCompile(`(?s)<[^>]*>`)
)

// snippet is a short, readable extract of a non-JSON body: an HTML page's
// title, or its text without tags, at most 200 characters.
func snippet(b []byte) string {
	s := string(b)
	if m := titleRE.FindStringSubmatch(s); m != nil && strings.TrimSpace(m[1]) != "" {
		s = m[1]
	} else {
		s = tagRE.ReplaceAllString(s, " ")
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// maxRetryAfter caps an announced wait (a misconfigured header must not
// stall an endpoint for days).
const maxRetryAfter = time.Hour

// retryAfter reads Retry-After in seconds or as an HTTP date (relative to
// now); for a 429 without it, X-Rate-Limit-Reset (an RFC 3339 or HTTP date).
// 0 when absent.
func retryAfter(h http.Header, status int, now time.Time) time.Duration {
	var d time.Duration
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			d = time.Duration(secs * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	} else if v := strings.TrimSpace(h.Get("X-Rate-Limit-Reset")); v != "" && status == http.StatusTooManyRequests {
		if t, err := parseTime(v); err == nil && t != nil {
			d = t.Sub(now)
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	return min(max(d, 0), maxRetryAfter)
}
