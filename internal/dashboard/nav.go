package dashboard

// navEntry is one link of the layout's nav.
type navEntry struct {
	ID, Label, Path string
}

// nav is the layout's nav, in order; a page names its entry in view.Nav.
var nav = []navEntry{
	{"documents", "Documents", "/app/documents"},
	{"buyers", "Buyers", "/app/buyers"},
	{"sellers", "Sellers", "/app/sellers"},
	{"received", "Received", "/app/received"},
	{"receipts", "Receipts", "/app/receipts"},
	{"consolidations", "Consolidations", "/app/consolidations"},
	{"mail", "Mail", "/app/mail"},
	{"webhooks", "Webhooks", "/app/webhooks"},
	{"audit", "Audit log", "/app/audit"},
	{"profile", "Profile", "/app/profile"},
	{"people", "People", "/app/people"},
	{"keys", "API keys", "/app/keys"},
}

func init() { funcs["navEntries"] = func() []navEntry { return nav } }
