package dashboard

import (
	"net/http"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
	"github.com/einvoice/einvoice/internal/web"
)

// routes registers every page. public pages need no session; page ones a
// signed-in session (any role); post ones a POST with a valid CSRF token and
// a same-origin Origin or Referer, write ones also a role with the work
// right (owner, admin, accountant), settings ones the settings right (owner,
// admin).
func (d *Dashboard) routes() {
	// The service's root leads a browser to the dashboard; any other
	// client gets the root's own 404.
	d.root.HandlePage("/{$}", http.HandlerFunc(d.serviceRoot))
	d.handle("GET /app", redirectTo("/app/documents"))
	d.handle("GET /app/{$}", redirectTo("/app/documents"))
	d.handle("GET /app/static/", staticFiles())

	// People (DECISIONS 20): sign-in, links, the account, people and keys.
	d.handle("GET /app/signin", http.HandlerFunc(d.signInPage))
	d.handle("POST /app/signin", http.HandlerFunc(d.signIn))
	d.handle("GET /app/signin/code", http.HandlerFunc(d.secondFactorPage))
	d.handle("POST /app/signin/code", http.HandlerFunc(d.secondFactor))
	d.handle("GET /app/signin/forgot", http.HandlerFunc(d.forgotPage))
	d.handle("POST /app/signin/forgot", http.HandlerFunc(d.forgot))
	d.handle("GET /app/link/{secret}", http.HandlerFunc(d.linkPage))
	d.handle("POST /app/link/{secret}", http.HandlerFunc(d.useLink))
	d.handle("POST /app/signout", d.post(d.signOut))
	d.handle("POST /app/signout/everywhere", d.post(d.signOutEverywhere))
	d.handle("POST /app/tenant", d.post(d.switchTenant))
	d.handle("GET /app/account", d.page(d.account))
	d.handle("POST /app/account/name", d.post(d.renameAccount))
	d.handle("POST /app/account/password", d.post(d.changePassword))
	d.handle("POST /app/account/totp/start", d.post(d.startTOTP))
	d.handle("POST /app/account/totp", d.post(d.enableTOTP))
	d.handle("POST /app/account/totp/disable", d.post(d.disableTOTP))
	d.handle("POST /app/account/totp/codes", d.post(d.newRecoveryCodes))
	d.handle("POST /app/account/passkeys/options", d.passkeyPost(d.passkeyCreationOptions))
	d.handle("POST /app/account/passkeys", d.passkeyPost(d.addPasskey))
	d.handle("POST /app/account/passkeys/{id}/delete", d.post(d.removePasskey))
	d.handle("POST /app/signin/passkey/options", d.preSessionPasskeyPost(d.passkeyRequestOptions))
	d.handle("POST /app/signin/passkey", d.preSessionPasskeyPost(d.passkeySignIn))
	d.handle("GET /app/people", d.page(d.peoplePage))
	d.handle("POST /app/people/invite", d.settings(d.invite))
	d.handle("POST /app/people/{user}/role", d.settings(d.setRole))
	d.handle("POST /app/people/{user}/remove", d.settings(d.removeMember))
	d.handle("POST /app/people/{user}/reset", d.settings(d.resetLink))
	d.handle("GET /app/keys", d.page(d.keysPage))
	d.handle("POST /app/keys", d.settings(d.createKey))
	d.handle("POST /app/keys/{id}/revoke", d.settings(d.revokeKey))

	d.handle("GET /app/documents", d.page(d.documents))
	d.handle("GET /app/documents.csv", d.page(d.documentsCSV))
	d.handle("GET /app/documents/{id}", d.page(d.document))
	d.handle("GET /app/documents/{id}/pdf", d.page(d.documentPDF))
	d.handle("GET /app/documents/{id}/qr", d.page(d.documentQR))
	d.handle("POST /app/documents/{id}/validate", d.write(d.validateDocument))
	d.handle("POST /app/documents/{id}/submit", d.write(d.submitDocument))
	d.handle("POST /app/documents/{id}/cancel", d.write(d.cancelDocument))
	d.handle("POST /app/documents/{id}/deliver", d.write(d.deliverDocument))

	// Part D: received documents, receipts, consolidations, webhooks.
	d.handle("GET /app/received", d.page(d.receivedList))
	d.handle("GET /app/received/{id}", d.page(d.receivedDocument))
	d.handle("GET /app/received/{id}/pdf", d.page(d.receivedPDF))
	d.handle("POST /app/received/{id}/reject", d.write(d.rejectReceived))
	d.handle("GET /app/receipts", d.page(d.receipts))
	d.handle("GET /app/receipts/{id}", d.page(d.receipt))
	d.handle("GET /app/receipts/{id}/qr", d.page(d.receiptQR))
	d.handle("POST /app/receipts/{id}/delete", d.write(d.deleteReceipt))
	d.handle("GET /app/consolidations", d.page(d.consolidations))
	d.handle("POST /app/consolidations", d.write(d.createConsolidation))
	d.handle("GET /app/consolidations/{id}", d.page(d.consolidation))
	// Mail (DECISIONS 21): the service's mailbox and the mail settings.
	d.handle("GET /app/mail", d.page(d.mailList))
	d.handle("GET /app/mail/settings", d.page(d.mailSettings))
	d.handle("POST /app/mail/settings", d.settings(d.saveMailSettings))
	d.handle("POST /app/mail/settings/preview", d.settings(d.previewMailSettings))
	d.handle("POST /app/mail/settings/test", d.settings(d.testMail))
	d.handle("GET /app/mail/{id}", d.page(d.mailMessage))
	d.handle("GET /app/mail/{id}/attachment", d.page(d.mailAttachment))
	d.handle("GET /app/audit", d.page(d.auditList))
	d.handle("GET /app/webhooks", d.page(d.webhooks))
	d.handle("GET /app/webhooks/new", d.page(d.newWebhook))
	d.handle("POST /app/webhooks", d.settings(d.createWebhook))
	d.handle("GET /app/webhooks/{id}", d.page(d.webhook))
	d.handle("POST /app/webhooks/{id}", d.settings(d.updateWebhook))
	d.handle("POST /app/webhooks/{id}/delete", d.settings(d.deleteWebhook))
	d.handle("POST /app/webhooks/{id}/rotate", d.settings(d.rotateWebhook))
	d.handle("POST /app/webhooks/{id}/test", d.settings(d.testWebhook))
	d.handle("POST /app/webhooks/{id}/deliveries/{delivery}/redeliver", d.settings(d.redeliver))
	// Part B: the create and edit forms of a document, with live totals.
	d.handle("GET /app/documents/new", d.page(d.newDocument))
	d.handle("POST /app/documents/new", d.write(d.createDocument))
	d.handle("POST /app/documents/preview", d.write(d.previewDocument))
	d.handle("GET /app/documents/{id}/edit", d.page(d.editDocument))
	d.handle("POST /app/documents/{id}/edit", d.write(d.updateDocument))
	// Part C: buyers, on-behalf sellers, the profile and the tax-authority settings.
	for _, k := range []partyPage{buyerPages, sellerPages} {
		d.handle("GET "+k.Path(), d.page(d.listParties(k)))
		d.handle("GET "+k.Path()+"/new", d.page(d.newParty(k)))
		d.handle("POST "+k.Path(), d.write(d.saveParty(k)))
		d.handle("GET "+k.Path()+"/{id}", d.page(d.showParty(k)))
		d.handle("GET "+k.Path()+"/{id}/edit", d.page(d.editParty(k)))
		d.handle("POST "+k.Path()+"/{id}", d.write(d.saveParty(k)))
		d.handle("POST "+k.Path()+"/{id}/delete", d.write(d.deleteParty(k)))
	}
	d.handle("GET /app/profile", d.page(d.profile))
	d.handle("POST /app/profile", d.settings(d.saveProfile))
	d.handle("GET /app/profile/check", d.page(d.profileCheck))
	d.handle("POST /app/profile/authority", d.settings(d.saveAuthority))

	// Everything else under /app: our own 404 page.
	d.handle("/app/", http.HandlerFunc(d.notFound))
}

// redirectTo answers 303 See Other to path.
func redirectTo(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, path, http.StatusSeeOther) }
}

// serviceRoot answers GET / of a browser (it accepts HTML) with a redirect
// to the dashboard, and anything else with the JSON 404 of a path no route
// knows.
func (d *Dashboard) serviceRoot(w http.ResponseWriter, r *http.Request) {
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.Redirect(w, r, "/app/documents", http.StatusSeeOther)
		return
	}
	web.WriteError(w, r, d.logger, einvoice.Errorf(einvoice.CodeNotFound,
		"No route for %s %s: the API is under /api/v1, the dashboard under /app.", r.Method, r.URL.Path))
}
