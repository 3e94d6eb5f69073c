package testsmtp

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
)

// Message is a message the server received.
type Message struct {
	// From is the envelope's sender (MAIL FROM), To its recipients (RCPT
	// TO, bcc included), in order.
	From string
	To   []string
	// Raw is the message as received (CRLF line ends, dot-stuffing undone).
	Raw []byte
	// Header is the message's header (values as written: decode encoded
	// words with mime.WordDecoder, or use Subject).
	Header mail.Header
	// Text is the first text/plain part that is not an attachment,
	// decoded (transfer encoding, charset UTF-8 or US-ASCII), with "\n"
	// line ends.
	Text string
	// Attachments are the parts with a file name or an "attachment"
	// disposition, decoded.
	Attachments []Attachment
	// Err is why Raw could not be parsed whole, nil when it was; Header,
	// Text and Attachments then hold what was parsed before.
	Err error
}

// Attachment is a file attached to a received message.
type Attachment struct {
	Name        string // the file name, encoded words decoded
	ContentType string // the media type, without parameters
	Data        []byte // decoded
}

// Subject returns the message's Subject, encoded words decoded.
func (m *Message) Subject() string { return decodeWords(m.Header.Get("Subject")) }

// Parse parses a raw message as the server does for Messages (exported
// for tests of the parsing).
func Parse(raw []byte) Message {
	return parse(raw)
}

var wordDecoder = &mime.WordDecoder{}

func decodeWords(s string) string {
	if d, err := wordDecoder.DecodeHeader(s); err == nil {
		return d
	}
	return s
}

func parse(raw []byte) Message {
	m := Message{Raw: raw}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		m.Err = fmt.Errorf("header: %w", err)
		return m
	}
	m.Header = msg.Header
	m.Err = m.walk(textproto.MIMEHeader(msg.Header), msg.Body, 0)
	return m
}

// walk parses one entity (header h, body) of the message, at depth.
func (m *Message) walk(h textproto.MIMEHeader, body io.Reader, depth int) error {
	if depth > 10 {
		return fmt.Errorf("multiparts nested too deep")
	}
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "text/plain; charset=us-ascii"
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("Content-Type %q: %w", ct, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		if params["boundary"] == "" {
			return fmt.Errorf("%s without a boundary", mt)
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			// NextRawPart: keep the transfer encoding, decoded below.
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", mt, err)
			}
			if err := m.walk(p.Header, p, depth+1); err != nil {
				return err
			}
		}
	}
	data, err := decodeBody(h.Get("Content-Transfer-Encoding"), body)
	if err != nil {
		return err
	}
	var name string
	disp, dparams, derr := mime.ParseMediaType(h.Get("Content-Disposition"))
	if derr == nil {
		name = dparams["filename"]
	}
	if name == "" {
		name = params["name"]
	}
	name = decodeWords(name)
	if disp == "attachment" || name != "" {
		m.Attachments = append(m.Attachments, Attachment{Name: name, ContentType: mt, Data: data})
		return nil
	}
	if mt == "text/plain" && m.Text == "" {
		switch cs := strings.ToLower(params["charset"]); cs {
		case "", "utf-8", "us-ascii":
		default:
			return fmt.Errorf("text/plain in charset %q", cs)
		}
		m.Text = strings.ReplaceAll(string(data), "\r\n", "\n")
	}
	return nil
}

// decodeBody undoes the transfer encoding cte.
func decodeBody(cte string, body io.Reader) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "", "7bit", "8bit", "binary":
		return io.ReadAll(body)
	case "quoted-printable":
		b, err := io.ReadAll(quotedprintable.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("quoted-printable: %w", err)
		}
		return b, nil
	case "base64":
		b, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, &lineStripper{r: body}))
		if err != nil {
			return nil, fmt.Errorf("base64: %w", err)
		}
		return b, nil
	default:
		return nil, fmt.Errorf("unknown Content-Transfer-Encoding %q", cte)
	}
}

// lineStripper drops CR, LF, space and tab (base64 bodies are in lines).
type lineStripper struct{ r io.Reader }

func (l *lineStripper) Read(p []byte) (int, error) {
	for {
		n, err := l.r.Read(p)
		j := 0
		for _, b := range p[:n] {
			switch b {
			case '\r', '\n', ' ', '\t':
			default:
				p[j] = b
				j++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}
