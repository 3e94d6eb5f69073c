package people

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/einvoice/einvoice/internal/einvoice"
)

func forbidden(msg string) error { return &einvoice.Error{Code: einvoice.CodeForbidden, Message: msg} }

func lastOwner() error {
	return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "A tenant keeps at least one owner: make another owner first.",
		Fields: einvoice.FieldErrors{"role": {"The last owner stays an owner."}}}
}

// canManage says whether a role may change a member of role from to role
// to: the settings right, and the owners right when an owner is involved.
func canManage(actor, from, to einvoice.Role) error {
	if !actor.Can(einvoice.RightSettings) {
		return forbidden("Only owners and admins manage people.")
	}
	if (from == einvoice.RoleOwner || to == einvoice.RoleOwner) && !actor.Can(einvoice.RightOwners) {
		return forbidden("Only owners make, change or remove owners.")
	}
	return nil
}

// Members returns the tenant's users and their roles.
func (s *Service) Members(ctx context.Context, tenantID string) ([]einvoice.Member, error) {
	ms, err := s.store.Members(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("members: %w", err)
	}
	return ms, nil
}

func (s *Service) member(ctx context.Context, tenantID, userID string) (*einvoice.Member, error) {
	ms, err := s.Members(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		if ms[i].User.ID == userID {
			return &ms[i], nil
		}
	}
	return nil, einvoice.Errorf(einvoice.CodeNotFound, "No member of this tenant has id %q.", userID)
}

// SetRole changes a member's role.
func (s *Service) SetRole(ctx context.Context, actor einvoice.Role, tenantID, userID string, role einvoice.Role) error {
	if !role.Valid() {
		return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "Choose a role.",
			Fields: einvoice.FieldErrors{"role": {"Choose owner, admin, accountant or viewer."}}}
	}
	m, err := s.member(ctx, tenantID, userID)
	if err != nil {
		return err
	}
	if err := canManage(actor, m.Role, role); err != nil {
		return err
	}
	err = s.store.PutMembership(ctx, &einvoice.Membership{TenantID: tenantID, UserID: userID, Role: role, CreatedAt: m.Since})
	if errors.Is(err, einvoice.ErrLastOwner) {
		return lastOwner()
	}
	if err != nil {
		return fmt.Errorf("set role: %w", err)
	}
	return nil
}

// RemoveMember takes a member out of the tenant; its sessions there end at
// once.
func (s *Service) RemoveMember(ctx context.Context, actor einvoice.Role, tenantID, userID string) error {
	m, err := s.member(ctx, tenantID, userID)
	if err != nil {
		return err
	}
	if err := canManage(actor, m.Role, m.Role); err != nil {
		return err
	}
	err = s.store.RemoveMembership(ctx, tenantID, userID)
	if errors.Is(err, einvoice.ErrLastOwner) {
		return lastOwner()
	}
	if err != nil {
		return fmt.Errorf("remove member: %w", err)
	}
	return nil
}

// AddUser makes the user of the e-mail (when new) a member of the tenant
// with the role, and returns a one-time link that sets its password (the
// CLI's `user add`).
func (s *Service) AddUser(ctx context.Context, tenantID, email, name string, role einvoice.Role) (*einvoice.User, string, error) {
	email = strings.TrimSpace(email)
	if err := CheckEmail(email); err != nil {
		return nil, "", err
	}
	if !role.Valid() {
		return nil, "", einvoice.Errorf(einvoice.CodeValidationFailed, "role must be owner, admin, accountant or viewer")
	}
	if _, err := s.store.GetTenant(ctx, tenantID); errors.Is(err, einvoice.ErrNotFound) {
		return nil, "", einvoice.Errorf(einvoice.CodeNotFound, "no tenant with id %q", tenantID)
	} else if err != nil {
		return nil, "", fmt.Errorf("add user: %w", err)
	}
	now := s.now()
	u, err := s.store.UserByEmail(ctx, email)
	if errors.Is(err, einvoice.ErrNotFound) {
		if name = strings.TrimSpace(name); name == "" {
			name = email
		}
		if err := checkName(name); err != nil {
			return nil, "", err
		}
		u = &einvoice.User{ID: s.newID(), Email: email, Name: name, CreatedAt: now, UpdatedAt: now}
		if err := s.store.CreateUser(ctx, u); err != nil {
			return nil, "", fmt.Errorf("add user: %w", err)
		}
	} else if err != nil {
		return nil, "", fmt.Errorf("add user: %w", err)
	}
	if err := s.store.PutMembership(ctx, &einvoice.Membership{TenantID: tenantID, UserID: u.ID, Role: role, CreatedAt: now}); errors.Is(err, einvoice.ErrLastOwner) {
		return nil, "", lastOwner()
	} else if err != nil {
		return nil, "", fmt.Errorf("add user: %w", err)
	}
	link, secret := s.newLink(einvoice.TokenSetup, u.Email, u.ID, "", "", "cli")
	if err := s.store.CreateUserToken(ctx, link); err != nil {
		return nil, "", fmt.Errorf("add user: %w", err)
	}
	return u, s.URL(secret), nil
}

// ChangePassword sets a new password after the current one; the user's
// other sessions end.
func (s *Service) ChangePassword(ctx context.Context, su *einvoice.SessionUser, current, next string) error {
	if !s.matches(current, su.User.PasswordHash) {
		return &einvoice.Error{Code: einvoice.CodeValidationFailed, Message: "The current password is wrong.",
			Fields: einvoice.FieldErrors{"current": {"The current password is wrong."}}}
	}
	if err := CheckPassword(next, su.User.Email); err != nil {
		return err
	}
	hash, err := s.hash(next)
	if err != nil {
		return err
	}
	if err := s.store.SetPassword(ctx, su.User.ID, hash, s.now(), su.Session.ID); err != nil {
		return fmt.Errorf("change password: %w", err)
	}
	return nil
}

// Rename changes the user's name.
func (s *Service) Rename(ctx context.Context, u *einvoice.User, name string) error {
	name = strings.TrimSpace(name)
	if err := checkName(name); err != nil {
		return err
	}
	u.Name, u.UpdatedAt = name, s.now()
	if err := s.store.UpdateUser(ctx, u); err != nil {
		return fmt.Errorf("rename: %w", err)
	}
	return nil
}
