package dashboard

import "net/http"

// routes registers every page. public pages need no session; page ones a
// signed-in session (any key); write ones a read-write key, a POST with a
// valid CSRF token and a same-origin Origin or Referer.
func (d *Dashboard) routes() {
	d.mux.HandleFunc("GET /app", redirectTo("/app/documents"))
	d.mux.HandleFunc("GET /app/{$}", redirectTo("/app/documents"))
	d.mux.Handle("GET /app/static/", staticFiles())

	d.mux.HandleFunc("GET /app/signin", d.signInPage)
	d.mux.HandleFunc("POST /app/signin", d.signIn)
	d.mux.Handle("POST /app/signout", d.post(d.signOut))

	d.mux.Handle("GET /app/documents", d.page(d.documents))
	d.mux.Handle("GET /app/documents.csv", d.page(d.documentsCSV))
	d.mux.Handle("GET /app/documents/{id}", d.page(d.document))
	d.mux.Handle("GET /app/documents/{id}/pdf", d.page(d.documentPDF))
	d.mux.Handle("GET /app/documents/{id}/qr", d.page(d.documentQR))
	d.mux.Handle("POST /app/documents/{id}/validate", d.write(d.validateDocument))
	d.mux.Handle("POST /app/documents/{id}/submit", d.write(d.submitDocument))
	d.mux.Handle("POST /app/documents/{id}/cancel", d.write(d.cancelDocument))

	// Part D: received documents, receipts, consolidations, webhooks.
	d.mux.Handle("GET /app/received", d.page(d.receivedList))
	d.mux.Handle("GET /app/received/{id}", d.page(d.receivedDocument))
	d.mux.Handle("GET /app/received/{id}/pdf", d.page(d.receivedPDF))
	d.mux.Handle("POST /app/received/{id}/reject", d.write(d.rejectReceived))
	d.mux.Handle("GET /app/receipts", d.page(d.receipts))
	d.mux.Handle("GET /app/receipts/{id}", d.page(d.receipt))
	d.mux.Handle("GET /app/receipts/{id}/qr", d.page(d.receiptQR))
	d.mux.Handle("POST /app/receipts/{id}/delete", d.write(d.deleteReceipt))
	d.mux.Handle("GET /app/consolidations", d.page(d.consolidations))
	d.mux.Handle("POST /app/consolidations", d.write(d.createConsolidation))
	d.mux.Handle("GET /app/consolidations/{id}", d.page(d.consolidation))
	d.mux.Handle("GET /app/webhooks", d.page(d.webhooks))
	d.mux.Handle("GET /app/webhooks/new", d.page(d.newWebhook))
	d.mux.Handle("POST /app/webhooks", d.write(d.createWebhook))
	d.mux.Handle("GET /app/webhooks/{id}", d.page(d.webhook))
	d.mux.Handle("POST /app/webhooks/{id}", d.write(d.updateWebhook))
	d.mux.Handle("POST /app/webhooks/{id}/delete", d.write(d.deleteWebhook))
	d.mux.Handle("POST /app/webhooks/{id}/rotate", d.write(d.rotateWebhook))
	d.mux.Handle("POST /app/webhooks/{id}/test", d.write(d.testWebhook))
	d.mux.Handle("POST /app/webhooks/{id}/deliveries/{delivery}/redeliver", d.write(d.redeliver))
	// Part B: the create and edit forms of a document, with live totals.
	d.mux.Handle("GET /app/documents/new", d.page(d.newDocument))
	d.mux.Handle("POST /app/documents/new", d.write(d.createDocument))
	d.mux.Handle("POST /app/documents/preview", d.write(d.previewDocument))
	d.mux.Handle("GET /app/documents/{id}/edit", d.page(d.editDocument))
	d.mux.Handle("POST /app/documents/{id}/edit", d.write(d.updateDocument))
	// Part C: buyers, on-behalf sellers, the profile and the tax-authority settings.
	for _, k := range []partyPage{buyerPages, sellerPages} {
		d.mux.Handle("GET "+k.Path(), d.page(d.listParties(k)))
		d.mux.Handle("GET "+k.Path()+"/new", d.page(d.newParty(k)))
		d.mux.Handle("POST "+k.Path(), d.write(d.saveParty(k)))
		d.mux.Handle("GET "+k.Path()+"/{id}", d.page(d.showParty(k)))
		d.mux.Handle("GET "+k.Path()+"/{id}/edit", d.page(d.editParty(k)))
		d.mux.Handle("POST "+k.Path()+"/{id}", d.write(d.saveParty(k)))
		d.mux.Handle("POST "+k.Path()+"/{id}/delete", d.write(d.deleteParty(k)))
	}
	d.mux.Handle("GET /app/profile", d.page(d.profile))
	d.mux.Handle("POST /app/profile", d.write(d.saveProfile))
	d.mux.Handle("GET /app/profile/check", d.page(d.profileCheck))
	d.mux.Handle("POST /app/profile/authority", d.write(d.saveAuthority))

	// Everything else under /app: our own 404 page.
	d.mux.HandleFunc("/app/", d.notFound)
}

// redirectTo answers 303 See Other to path.
func redirectTo(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, path, http.StatusSeeOther) }
}
