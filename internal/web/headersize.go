package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// MaxHeaderBytes is the most a request's request line and header fields
// may hold together; more is a 431 REQUEST_HEADER_FIELDS_TOO_LARGE.
// http.Server.MaxHeaderBytes is set to it: net/http reads a little more
// (its read buffer), so the handler answers requests just over the limit,
// and net/http itself those far over it, rewritten by Listener.
const MaxHeaderBytes = 64 << 10

// headersTooLarge is the error of a request over MaxHeaderBytes.
func headersTooLarge() *einvoice.Error {
	return einvoice.Errorf(einvoice.CodeHeadersTooLarge,
		"The request line and header fields are larger than %d bytes (64 KiB) together.", MaxHeaderBytes)
}

// headerSize is the size of r's request line and header fields as sent
// (give or take the spaces around values, which net/http trims).
func headerSize(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2 + len("Host: \r\n") + len(r.Host) + 2
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n
}

// goHeadersTooLarge is what net/http writes itself, before any handler
// runs, to a request whose header is over http.Server.MaxHeaderBytes (plus
// its read buffer): net/http/server.go, errTooLarge. It is written in one
// Write on the connection, then the connection is closed.
const goHeadersTooLarge = "HTTP/1.1 431 Request Header Fields Too Large" + goErrorHeaders +
	"431 Request Header Fields Too Large"

// goErrorHeaders are the header fields of every answer net/http writes
// itself to a request it cannot read (net/http/server.go, conn.serve):
// "HTTP/1.1 <status>" + goErrorHeaders + "<text>", in one Write.
const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// Listener returns ln with connections on which net/http's own plain-text
// answers to requests it cannot read (a header over the limit: 431; a
// malformed request line or header: 400; an unknown Transfer-Encoding: 501;
// an unknown HTTP version: 505) become our JSON error, with the headers
// every answer carries. Only a lone Write of exactly such an answer is
// rewritten: a handler's answer never is one (net/http frames it with its
// own headers, and ours always carry X-Request-Id).
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c}, nil
}

// conn rewrites net/http's plain-text answers.
type conn struct{ net.Conn }

func (c *conn) Write(p []byte) (int, error) {
	e := goError(p)
	if e == nil {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(answerOf(e)); err != nil {
		return 0, fmt.Errorf("write the %s answer: %w", e.Code, err)
	}
	return len(p), nil
}

// goError returns our error for one of net/http's own plain-text answers
// (see goErrorHeaders), nil for any other write.
func goError(p []byte) *einvoice.Error {
	status, text, ok := bytes.Cut(p, []byte(goErrorHeaders))
	if !ok || !bytes.HasPrefix(status, []byte("HTTP/1.1 ")) || bytes.Contains(status, []byte("\r\n")) || bytes.Contains(text, []byte("\r\n")) {
		return nil
	}
	code, _, _ := bytes.Cut(status[len("HTTP/1.1 "):], []byte(" "))
	// The text after the status, as net/http wrote it ("400 Bad Request:
	// missing required Host header"): fixed strings of net/http.
	_, why, _ := bytes.Cut(text, []byte(": "))
	switch string(code) {
	case "431":
		return headersTooLarge()
	case "400":
		if len(why) > 0 {
			return einvoice.Errorf(einvoice.CodeMalformedRequest, "The request is not well-formed HTTP: %s.", why)
		}
		return einvoice.Errorf(einvoice.CodeMalformedRequest, "The request is not well-formed HTTP (its request line or a header field).")
	case "501":
		return einvoice.Errorf(einvoice.CodeTransferEncoding, "The request's Transfer-Encoding is not supported: send the body as is, or chunked.")
	case "505":
		return einvoice.Errorf(einvoice.CodeHTTPVersion, "The request's HTTP version is not supported: use HTTP/1.1 (or HTTP/1.0).")
	}
	return nil
}

// CloseWrite half-closes the connection as the one it wraps does: net/http
// does so after its 431, so that the client reads the answer before the
// connection goes.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// answerOf is the whole HTTP/1.1 answer of e, as WriteError would write
// it, closing the connection.
func answerOf(e *einvoice.Error) []byte {
	body, _ := json.Marshal(ErrorBody{Message: e.Message, ErrorCode: e.Code}) // our own type: cannot fail
	body = append(body, '\n')
	h := http.Header{}
	setCommonHeaders(h, uuid.NewString())
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Connection", "close")
	var b bytes.Buffer
	status := statusOf[e.Code]
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	_ = h.Write(&b) // a bytes.Buffer does not fail
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}
