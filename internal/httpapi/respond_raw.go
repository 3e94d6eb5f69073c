package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// The answers made of stored renderings (einvoice.Store's GetDocumentJSON
// and ListDocumentsJSON): the envelope is written around the stored bytes,
// byte for byte what writeJSON makes of the decoded documents, without
// decoding and encoding them again.

// okRawPage writes a list envelope whose items are JSON renderings.
func okRawPage(w http.ResponseWriter, p einvoice.Page[json.RawMessage]) {
	m := &meta{Page: p.Page, PerPage: p.PerPage, Total: p.Total, LastPage: p.LastPage()}
	for _, u := range p.Unreadable {
		m.Unreadable = append(m.Unreadable, u.ID)
	}
	mb, err := json.Marshal(m)
	if err != nil { // a struct of ints and strings
		web.WriteJSON(w, http.StatusOK, envelope{Success: true, Data: p.Items, Meta: m})
		return
	}
	n := len(`{"success":true,"data":[],"meta":}`) + len(mb) + 1
	for _, it := range p.Items {
		n += len(it) + 1
	}
	b := bytes.NewBuffer(make([]byte, 0, n))
	b.WriteString(`{"success":true,"data":[`)
	for i, it := range p.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteString(`],"meta":`)
	b.Write(mb)
	b.WriteString("}\n")
	web.WriteJSONBytes(w, http.StatusOK, b.Bytes())
}

// okRawDocument writes a document's envelope, its history added to its
// rendering as documentJSON adds it.
func okRawDocument(w http.ResponseWriter, status int, doc json.RawMessage, history []einvoice.Event, delivery *einvoice.DocumentDelivery) {
	hb, err := json.Marshal(history)
	var db []byte
	if err == nil && delivery != nil {
		db, err = json.Marshal(delivery)
	}
	if err != nil || len(doc) < 2 || doc[len(doc)-1] != '}' || doc[0] != '{' {
		var d einvoice.Document
		if json.Unmarshal(doc, &d) != nil {
			web.WriteJSON(w, http.StatusInternalServerError, web.ErrorBody{Message: "Internal server error.", ErrorCode: einvoice.CodeInternal})
			return
		}
		ok(w, status, documentJSON{Document: &d, History: history, EmailDelivery: delivery})
		return
	}
	b := bytes.NewBuffer(make([]byte, 0, len(`{"success":true,"data":,"emailDelivery":,"history":}}`)+len(doc)+len(hb)+len(db)+1))
	b.WriteString(`{"success":true,"data":`)
	b.Write(doc[:len(doc)-1])
	if len(doc) > 2 {
		b.WriteByte(',')
	}
	if db != nil {
		b.WriteString(`"emailDelivery":`)
		b.Write(db)
		b.WriteByte(',')
	}
	b.WriteString(`"history":`)
	b.Write(hb)
	b.WriteString("}}\n")
	web.WriteJSONBytes(w, status, b.Bytes())
}

// writeDocument writes the answer to a write of d: from the rendering the
// store just wrote when it gave one, else encoded.
func writeDocument(w http.ResponseWriter, status int, d *einvoice.Document, history []einvoice.Event) {
	if d.Rendering != nil {
		okRawDocument(w, status, d.Rendering, history, nil)
		return
	}
	ok(w, status, documentJSON{Document: d, History: history})
}
