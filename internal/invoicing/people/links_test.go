package people_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/einvoice/einvoice/internal/einvoice"
)

// TestInviteNewPerson: an invitation of a new e-mail is mailed; its link
// makes the account (name and password) and the membership with the
// invited role, once.
func TestInviteNewPerson(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	tn := h.tenant("Inviting Sdn. Bhd.")
	h.member(tn.ID, "owner@example.com", einvoice.RoleOwner)
	inv, err := h.svc.Invite(ctx, einvoice.RoleOwner, "owner@example.com", tn.ID, " New.Person@example.com ", einvoice.RoleAccountant)
	if err != nil || !inv.Mailed {
		t.Fatalf("Invite = %+v, %v; want a mailed invitation", inv, err)
	}
	if got := h.lastLink("New.Person@example.com"); got != inv.URL {
		t.Errorf("the mailed link %q is not the invitation's %q", got, inv.URL)
	}
	secret := secretOf(t, inv.URL)
	l, err := h.svc.Link(ctx, secret)
	if err != nil || l.User != nil || l.TenantName != "Inviting Sdn. Bhd." || l.Token.Kind != einvoice.TokenInvite || l.Token.Role != einvoice.RoleAccountant {
		t.Fatalf("Link = %+v, %v; want an invitation of a new person into the tenant as accountant", l, err)
	}
	// Refused input leaves the link usable.
	_, err = h.svc.UseLink(ctx, secret, "", password, h.addr())
	wantCode(t, "UseLink(no name)", err, einvoice.CodeValidationFailed)
	_, err = h.svc.UseLink(ctx, secret, "New Person", "1qaz2wsx3edc", h.addr())
	wantCode(t, "UseLink(common password)", err, einvoice.CodeValidationFailed)
	res, err := h.svc.UseLink(ctx, secret, "  New Person ", password, h.addr())
	if err != nil {
		t.Fatalf("UseLink: %v", err)
	}
	su := h.session(res.Token)
	if su.User.Email != "New.Person@example.com" || su.User.Name != "New Person" || su.Role != einvoice.RoleAccountant || su.Session.TenantID != tn.ID {
		t.Errorf("the new person's session = %+v / %+v, want the accountant New Person", su, su.User)
	}
	_, err = h.svc.UseLink(ctx, secret, "Someone Else", password, h.addr())
	wantCode(t, "UseLink a second time", err, einvoice.CodeNotFound)
	_, err = h.svc.Link(ctx, secret)
	wantCode(t, "Link(used)", err, einvoice.CodeNotFound)
	if _, err := h.svc.SignIn(ctx, "new.person@example.com", password, h.addr()); err != nil {
		t.Errorf("SignIn of the new person: %v", err)
	}
	for _, bad := range []string{"", "unknown", strings.Repeat("x", 200)} {
		_, err := h.svc.UseLink(ctx, bad, "X", password, h.addr())
		wantCode(t, "UseLink(unknown)", err, einvoice.CodeNotFound)
	}
	// An invitation lasts 7 days.
	inv, err = h.svc.Invite(ctx, einvoice.RoleOwner, "owner@example.com", tn.ID, "late@example.com", einvoice.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(7 * 24 * time.Hour)
	_, err = h.svc.UseLink(ctx, secretOf(t, inv.URL), "Late", password, h.addr())
	wantCode(t, "UseLink(invitation of 7 days ago)", err, einvoice.CodeNotFound)
}

// TestInviteExistingAccount: an invitation of an e-mail that has an
// account takes that account's password (not a new one), keeps it, and
// adds the tenant to the account's; wrong passwords count towards the
// e-mail's lockout.
func TestInviteExistingAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	firm, client := h.tenant("Accounting Firm"), h.tenant("Client Sdn. Bhd.")
	h.member(client.ID, "boss@client.example", einvoice.RoleOwner)
	u, _ := h.member(firm.ID, "clerk@firm.example", einvoice.RoleAccountant)
	inv, err := h.svc.Invite(ctx, einvoice.RoleOwner, "boss@client.example", client.ID, "Clerk@Firm.example", einvoice.RoleAccountant)
	if err != nil {
		t.Fatal(err)
	}
	secret := secretOf(t, inv.URL)
	if l, err := h.svc.Link(ctx, secret); err != nil || l.User == nil || l.User.ID != u.ID {
		t.Fatalf("Link = %+v, %v; want the existing account", l, err)
	}
	_, err = h.svc.UseLink(ctx, secret, "", "a different good passphrase", h.addr())
	wantCode(t, "UseLink(not the account's password)", err, einvoice.CodeValidationFailed)
	res, err := h.svc.UseLink(ctx, secret, "", password, h.addr())
	if err != nil {
		t.Fatalf("UseLink(the account's password): %v", err)
	}
	if su := h.session(res.Token); su.User.ID != u.ID || su.Session.TenantID != client.ID || su.Role != einvoice.RoleAccountant {
		t.Errorf("the session = %+v, want the clerk in the client's tenant", su)
	}
	ms, err := h.svc.Memberships(ctx, u.ID)
	if err != nil || len(ms) != 2 || ms[0].TenantName != "Accounting Firm" || ms[1].TenantName != "Client Sdn. Bhd." {
		t.Errorf("Memberships = %+v, %v; want the firm and the client", ms, err)
	}
	if _, err := h.svc.SignIn(ctx, "clerk@firm.example", password, h.addr()); err != nil {
		t.Errorf("SignIn with the unchanged password: %v", err)
	}

	// Guessing the account's password through an invitation meets the
	// lockout as a sign-in does.
	inv, err = h.svc.Invite(ctx, einvoice.RoleOwner, "boss@client.example", client.ID, "boss@firm.example", einvoice.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	h.member(firm.ID, "boss@firm.example", einvoice.RoleOwner)
	secret = secretOf(t, inv.URL)
	for range 5 {
		_, err := h.svc.UseLink(ctx, secret, "", "guessing the password", h.addr())
		wantCode(t, "UseLink(wrong password)", err, einvoice.CodeValidationFailed)
	}
	_, err = h.svc.UseLink(ctx, secret, "", password, h.addr())
	wantCode(t, "UseLink(the right password after 5 wrong ones)", err, einvoice.CodeRateLimitExceeded)
	_, err = h.svc.SignIn(ctx, "boss@firm.example", password, h.addr())
	wantCode(t, "SignIn after 5 wrong passwords through an invitation", err, einvoice.CodeRateLimitExceeded)
	h.clock.Advance(16 * time.Minute)
	if _, err := h.svc.UseLink(ctx, secret, "", password, h.addr()); err != nil {
		t.Errorf("UseLink once the lock ended: %v", err)
	}
}

// TestPasswordReset: a reset is mailed to an account's e-mail only (the
// answer the same either way); its link sets a new password within the
// hour, once, and ends the user's sessions and lockout.
func TestPasswordReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	tn := h.tenant("Resets")
	_, token := h.member(tn.ID, "forgetful@example.com", einvoice.RoleViewer)
	links := func() int {
		t.Helper()
		var n int
		if err := h.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM user_tokens`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	mails, stored := h.mailCount(), links()
	for _, email := range []string{"nobody@example.com", "not an e-mail", ""} {
		if err := h.svc.RequestReset(ctx, email, h.addr()); err != nil {
			t.Errorf("RequestReset(%q) = %v, want nil", email, err)
		}
	}
	if h.mailCount() != mails || links() != stored {
		t.Errorf("RequestReset of unknown e-mails mailed %d messages and stored %d links, want none", h.mailCount()-mails, links()-stored)
	}

	// A reset link lasts an hour.
	if err := h.svc.RequestReset(ctx, "Forgetful@Example.com", h.addr()); err != nil {
		t.Fatal(err)
	}
	old := h.lastLink("forgetful@example.com")
	if l, err := h.svc.Link(ctx, secretOf(t, old)); err != nil || l.Token.Kind != einvoice.TokenReset {
		t.Fatalf("Link(reset) = %+v, %v", l, err)
	}
	h.clock.Advance(time.Hour)
	_, err := h.svc.UseLink(ctx, secretOf(t, old), "", "my new passphrase!", h.addr())
	wantCode(t, "UseLink(reset link of an hour ago)", err, einvoice.CodeNotFound)

	// Locked out, the user resets within the hour: the new password works,
	// the old one not, the lock is gone, the other sessions ended.
	for range 5 {
		_, _ = h.svc.SignIn(ctx, "forgetful@example.com", "what was it again", h.addr())
	}
	if err := h.svc.RequestReset(ctx, "forgetful@example.com", h.addr()); err != nil {
		t.Fatal(err)
	}
	secret := secretOf(t, h.lastLink("forgetful@example.com"))
	h.clock.Advance(59 * time.Minute)
	_, err = h.svc.UseLink(ctx, secret, "", "forgetful@example.com", h.addr())
	wantCode(t, "UseLink(the e-mail as password)", err, einvoice.CodeValidationFailed)
	res, err := h.svc.UseLink(ctx, secret, "", "my new passphrase!", h.addr())
	if err != nil {
		t.Fatalf("UseLink(reset): %v", err)
	}
	if _, err := h.svc.Session(ctx, res.Token); err != nil {
		t.Errorf("the session the reset opened: %v", err)
	}
	if _, err := h.svc.Session(ctx, token); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("a session from before the reset = %v, want it ended", err)
	}
	_, err = h.svc.SignIn(ctx, "forgetful@example.com", password, h.addr())
	wantCode(t, "SignIn(the old password)", err, einvoice.CodeUnauthorized)
	if _, err := h.svc.SignIn(ctx, "forgetful@example.com", "my new passphrase!", h.addr()); err != nil {
		t.Errorf("SignIn(the new password): %v", err)
	}
	_, err = h.svc.UseLink(ctx, secret, "", "another passphrase!", h.addr())
	wantCode(t, "UseLink(reset) a second time", err, einvoice.CodeNotFound)
}

// TestRoles: who may invite, change and remove whom; a tenant keeps an
// owner; a member removed loses its session there at once.
func TestRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t)
	tn := h.tenant("Roles")
	owner, _ := h.member(tn.ID, "owner@example.com", einvoice.RoleOwner)
	admin, _ := h.member(tn.ID, "admin@example.com", einvoice.RoleAdmin)
	acct, acctToken := h.member(tn.ID, "acct@example.com", einvoice.RoleAccountant)

	// Invitations.
	for _, c := range []struct {
		inviter, role einvoice.Role
		code          einvoice.Code
	}{
		{einvoice.RoleAccountant, einvoice.RoleViewer, einvoice.CodeForbidden},
		{einvoice.RoleViewer, einvoice.RoleViewer, einvoice.CodeForbidden},
		{einvoice.RoleAdmin, einvoice.RoleOwner, einvoice.CodeForbidden},
		{einvoice.RoleAdmin, einvoice.RoleAdmin, ""},
		{einvoice.RoleAdmin, einvoice.RoleAccountant, ""},
		{einvoice.RoleOwner, einvoice.RoleOwner, ""},
		{einvoice.RoleOwner, "boss", einvoice.CodeValidationFailed},
	} {
		_, err := h.svc.Invite(ctx, c.inviter, "x@example.com", tn.ID, "invitee@example.com", c.role)
		wantCode(t, "Invite by "+string(c.inviter)+" of "+string(c.role), err, c.code)
	}
	_, err := h.svc.Invite(ctx, einvoice.RoleOwner, "x@example.com", tn.ID, "not an e-mail", einvoice.RoleViewer)
	wantCode(t, "Invite(bad e-mail)", err, einvoice.CodeValidationFailed)

	// Changes of owners need an owner.
	wantCode(t, "SetRole by admin of an owner", h.svc.SetRole(ctx, einvoice.RoleAdmin, tn.ID, owner.ID, einvoice.RoleAdmin), einvoice.CodeForbidden)
	wantCode(t, "SetRole by admin to owner", h.svc.SetRole(ctx, einvoice.RoleAdmin, tn.ID, acct.ID, einvoice.RoleOwner), einvoice.CodeForbidden)
	wantCode(t, "RemoveMember by admin of an owner", h.svc.RemoveMember(ctx, einvoice.RoleAdmin, tn.ID, owner.ID), einvoice.CodeForbidden)
	if _, err := h.svc.ResetLink(ctx, einvoice.RoleAdmin, "admin@example.com", tn.ID, owner.ID); einvoice.ErrorCode(err) != einvoice.CodeForbidden {
		t.Errorf("ResetLink by admin of an owner = %v, want FORBIDDEN", err)
	}
	wantCode(t, "SetRole by accountant", h.svc.SetRole(ctx, einvoice.RoleAccountant, tn.ID, acct.ID, einvoice.RoleViewer), einvoice.CodeForbidden)
	if err := h.svc.SetRole(ctx, einvoice.RoleAdmin, tn.ID, acct.ID, einvoice.RoleViewer); err != nil {
		t.Errorf("SetRole by admin of an accountant: %v", err)
	}
	if link, err := h.svc.ResetLink(ctx, einvoice.RoleAdmin, "admin@example.com", tn.ID, acct.ID); err != nil || !strings.HasPrefix(link, "https://dash.example/app/link/") {
		t.Errorf("ResetLink by admin of a viewer = %q, %v", link, err)
	}
	wantCode(t, "SetRole(unknown member)", h.svc.SetRole(ctx, einvoice.RoleOwner, tn.ID, "nobody", einvoice.RoleViewer), einvoice.CodeNotFound)

	// The last owner stays.
	wantCode(t, "SetRole(last owner -> admin)", h.svc.SetRole(ctx, einvoice.RoleOwner, tn.ID, owner.ID, einvoice.RoleAdmin), einvoice.CodeValidationFailed)
	wantCode(t, "RemoveMember(last owner)", h.svc.RemoveMember(ctx, einvoice.RoleOwner, tn.ID, owner.ID), einvoice.CodeValidationFailed)
	if err := h.svc.SetRole(ctx, einvoice.RoleOwner, tn.ID, admin.ID, einvoice.RoleOwner); err != nil {
		t.Fatalf("SetRole(admin -> owner): %v", err)
	}
	if err := h.svc.SetRole(ctx, einvoice.RoleOwner, tn.ID, owner.ID, einvoice.RoleAdmin); err != nil {
		t.Errorf("SetRole(one of two owners -> admin): %v", err)
	}

	// A removed member's session ends at once.
	if err := h.svc.RemoveMember(ctx, einvoice.RoleAdmin, tn.ID, acct.ID); err != nil {
		t.Fatalf("RemoveMember: %v", err)
	}
	if _, err := h.svc.Session(ctx, acctToken); einvoice.ErrorCode(err) != einvoice.CodeUnauthorized {
		t.Errorf("the removed member's session = %v, want UNAUTHORIZED", err)
	}
	members, err := h.svc.Members(ctx, tn.ID)
	if err != nil || len(members) != 2 {
		t.Errorf("Members = %+v, %v; want the two left", members, err)
	}
}
