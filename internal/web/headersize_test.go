package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// wantJSONError checks an answer is our error body with code.
func wantJSONError(t *testing.T, what string, status int, h http.Header, body []byte, code einvoice.Code) {
	t.Helper()
	var e ErrorBody
	if err := json.Unmarshal(body, &e); err != nil || status != Status(code) || e.ErrorCode != code || e.Message == "" ||
		h.Get("Content-Type") != "application/json" || h.Get("X-Request-Id") == "" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("%s: %d %v %s, want our %s", what, status, h, body, code)
	}
}

// TestListener: behind Listener, net/http's own 431 (a header far over
// http.Server.MaxHeaderBytes) is our JSON error, and nothing else changes,
// not even a handler's answer that holds net/http's text.
func TestListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{MaxHeaderBytes: MaxHeaderBytes, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, goHeadersTooLarge)
	})}
	go func() { _ = srv.Serve(Listener(ln)) }()
	t.Cleanup(func() { _ = srv.Close() })
	addr := ln.Addr().String()

	get := func(header string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+"/", nil)
		if header != "" {
			req.Header.Set("X-Big", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	// Sizes a socket's buffers take whole: the client has sent all before
	// the server, having read its fill, answers and closes.
	for _, n := range []int{MaxHeaderBytes + 8<<10, 200 << 10} {
		resp, body := get(strings.Repeat("b", n))
		wantJSONError(t, fmt.Sprintf("%d bytes of header", n), resp.StatusCode, resp.Header, body, einvoice.CodeHeadersTooLarge)
		if !resp.Close || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%d bytes of header: %v", n, resp.Header)
		}
	}
	if resp, body := get(""); resp.StatusCode != 200 || string(body) != goHeadersTooLarge {
		t.Errorf("a handler's answer: %d %q", resp.StatusCode, body)
	}
}

// TestListenerMalformedRequests: requests net/http cannot read as HTTP get
// our JSON error too (it answers them itself, in plain text, before any
// handler runs), and the connection is closed after it.
func TestListenerMalformedRequests(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{MaxHeaderBytes: MaxHeaderBytes, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "400 Bad Request")
	})}
	go func() { _ = srv.Serve(Listener(ln)) }()
	t.Cleanup(func() { _ = srv.Close() })
	for _, tc := range []struct {
		name, request string
		code          einvoice.Code
	}{
		{"no Host", "GET / HTTP/1.1\r\n\r\n", einvoice.CodeMalformedRequest},
		{"a header line without a colon", "GET / HTTP/1.1\r\nHost: a\r\nBroken header\r\n\r\n", einvoice.CodeMalformedRequest},
		{"a request line of one word", "NONSENSE\r\n\r\n", einvoice.CodeMalformedRequest},
		{"an unknown transfer coding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", einvoice.CodeTransferEncoding},
		{"HTTP/2.0 over HTTP/1", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", einvoice.CodeHTTPVersion},
	} {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, tc.request); err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(c) // the server closes the connection after its answer
		c.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
		if err != nil {
			t.Errorf("%s: %v in %q", tc.name, err, raw)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		wantJSONError(t, tc.name, resp.StatusCode, resp.Header, body, tc.code)
	}
	// A handler's own 400 with net/http's words in it is left alone.
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || string(body) != "400 Bad Request" {
		t.Errorf("a handler's 400: %d %q", resp.StatusCode, body)
	}
}
