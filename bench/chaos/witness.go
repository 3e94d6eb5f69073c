package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// witness is a recording reverse proxy between the service and the
// authority. It forwards every call unchanged (a connection the authority
// drops, it drops too) and records every submission: the documents in it
// (codeNumber and the SHA-256 of the decoded bytes) and the authority's
// answer. It knows nothing of the service's records.
type witness struct {
	URL string
	srv *http.Server

	mu    sync.Mutex
	sends []*send
	calls map[string]int // "endpoint status" -> count
}

// send is one submission forwarded to the authority.
type send struct {
	At   time.Time
	Docs []sentDoc
	// Status is the authority's HTTP status; 0 when no answer came back.
	Status int
	// NoAnswer says why there was none: the authority dropped the
	// connection, or the service gave up waiting.
	NoAnswer string
	// Accepted maps codeNumber to the uuid of a 202 answer.
	Accepted map[string]string
	// Rejected lists the codeNumbers the 202 answer rejected.
	Rejected []string
}

// sentDoc is one document of a submission.
type sentDoc struct {
	CodeNumber string
	Hash       string // hex SHA-256 of the decoded document
}

type sendKey struct{}

// startWitness starts the proxy to target on a loopback port.
func startWitness(target string) (*witness, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	w := &witness{calls: map[string]int{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
		// One connection per call, and no retry by the transport: a
		// dropped connection is the service's to see, never resent here.
		Transport:      &http.Transport{DisableKeepAlives: true, ResponseHeaderTimeout: 5 * time.Minute},
		ModifyResponse: w.answered,
		ErrorHandler:   w.unanswered,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	w.URL = "http://" + ln.Addr().String()
	w.srv = &http.Server{Handler: w.record(rp), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = w.srv.Serve(ln) }()
	return w, nil
}

// close stops the proxy.
func (w *witness) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = w.srv.Shutdown(ctx)
}

// record notes a submission's documents before forwarding it.
func (w *witness) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && endpointOf(r.URL.Path) == "submit" {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				panic(http.ErrAbortHandler)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			s := &send{At: time.Now(), Docs: decodeSubmission(body)}
			w.mu.Lock()
			w.sends = append(w.sends, s)
			w.mu.Unlock()
			r = r.WithContext(context.WithValue(r.Context(), sendKey{}, s))
		}
		next.ServeHTTP(rw, r)
	})
}

// answered records the authority's answer (ModifyResponse).
func (w *witness) answered(resp *http.Response) error {
	s, _ := resp.Request.Context().Value(sendKey{}).(*send)
	var body []byte
	if s != nil {
		var err error
		if body, err = io.ReadAll(resp.Body); err != nil {
			return fmt.Errorf("read the submission's answer: %w", err)
		}
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls[fmt.Sprintf("%s %d", endpointOf(resp.Request.URL.Path), resp.StatusCode)]++
	if s != nil {
		s.Status = resp.StatusCode
		s.Accepted, s.Rejected = decodeSubmitAnswer(body)
	}
	return nil
}

// unanswered records a call without an answer (ErrorHandler) and passes
// the failure on as it happened: the connection is dropped.
func (w *witness) unanswered(rw http.ResponseWriter, r *http.Request, err error) {
	why := "dropped by the authority: " + err.Error()
	if r.Context().Err() != nil {
		why = "the service gave up waiting"
	}
	w.mu.Lock()
	w.calls[endpointOf(r.URL.Path)+" no answer"]++
	if s, _ := r.Context().Value(sendKey{}).(*send); s != nil {
		s.NoAnswer = why
	}
	w.mu.Unlock()
	if r.Context().Err() != nil || errors.Is(err, context.Canceled) {
		return
	}
	panic(http.ErrAbortHandler)
}

// endpointOf names the authority's endpoint of a path, as the sandbox's
// fault switches do.
func endpointOf(path string) string {
	switch {
	case path == "/connect/token":
		return "token"
	case strings.HasPrefix(path, "/api/v1.0/documentsubmissions"):
		if strings.Trim(strings.TrimPrefix(path, "/api/v1.0/documentsubmissions"), "/") == "" {
			return "submit"
		}
		return "submission"
	case strings.HasPrefix(path, "/api/v1.0/documents/state/"):
		return "cancel"
	case path == "/api/v1.0/documents/search":
		return "search"
	case strings.HasPrefix(path, "/api/v1.0/documents/") && strings.HasSuffix(path, "/details"):
		return "details"
	case strings.HasPrefix(path, "/api/v1.0/documents/") && strings.HasSuffix(path, "/raw"):
		return "raw"
	case strings.HasPrefix(path, "/api/v1.0/taxpayer/"):
		return "tin"
	}
	return "other"
}

// decodeSubmission reads the documents of a submission body; a document
// that cannot be decoded is recorded with an empty hash.
func decodeSubmission(body []byte) []sentDoc {
	var env struct {
		Documents []struct {
			Document   string `json:"document"`
			CodeNumber string `json:"codeNumber"`
		} `json:"documents"`
	}
	if json.Unmarshal(body, &env) != nil {
		return nil
	}
	out := make([]sentDoc, 0, len(env.Documents))
	for _, d := range env.Documents {
		sd := sentDoc{CodeNumber: d.CodeNumber}
		if raw, err := base64.StdEncoding.DecodeString(d.Document); err == nil {
			sum := sha256.Sum256(raw)
			sd.Hash = hex.EncodeToString(sum[:])
		}
		out = append(out, sd)
	}
	return out
}

// decodeSubmitAnswer reads a 202 answer: the uuid of each accepted
// codeNumber, and the rejected codeNumbers.
func decodeSubmitAnswer(body []byte) (map[string]string, []string) {
	var a struct {
		Accepted []struct {
			UUID              string `json:"uuid"`
			InvoiceCodeNumber string `json:"invoiceCodeNumber"`
		} `json:"acceptedDocuments"`
		Rejected []struct {
			InvoiceCodeNumber string `json:"invoiceCodeNumber"`
		} `json:"rejectedDocuments"`
	}
	if json.Unmarshal(body, &a) != nil {
		return nil, nil
	}
	acc := map[string]string{}
	for _, d := range a.Accepted {
		acc[d.InvoiceCodeNumber] = d.UUID
	}
	var rej []string
	for _, d := range a.Rejected {
		rej = append(rej, d.InvoiceCodeNumber)
	}
	return acc, rej
}

// witnessed is what the witness saw of one document.
type witnessed struct {
	Sends    int      // submissions that carried it
	Hashes   []string // the distinct hashes it was sent with
	Accepted []string // uuids of 202 answers that accepted it
	Rejected int      // 202 answers that rejected it
	// Unanswered counts sends without an answer: the authority may or may
	// not have processed them.
	Unanswered int
}

// byCodeNumber sums the witness's record per codeNumber.
func (w *witness) byCodeNumber() map[string]*witnessed {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]*witnessed{}
	for _, s := range w.sends {
		for _, d := range s.Docs {
			x := out[d.CodeNumber]
			if x == nil {
				x = &witnessed{}
				out[d.CodeNumber] = x
			}
			x.Sends++
			if !slices.Contains(x.Hashes, d.Hash) {
				x.Hashes = append(x.Hashes, d.Hash)
			}
			switch {
			case s.Accepted[d.CodeNumber] != "":
				x.Accepted = append(x.Accepted, s.Accepted[d.CodeNumber])
			case slices.Contains(s.Rejected, d.CodeNumber):
				x.Rejected++
			case s.Status == 0:
				x.Unanswered++
			}
		}
	}
	return out
}

// callCounts returns the calls per "endpoint status", and the number of
// submissions forwarded.
func (w *witness) callCounts() (map[string]int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.calls), len(w.sends)
}
