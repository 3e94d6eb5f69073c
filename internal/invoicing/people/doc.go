// Package people is the capability of the people who use the dashboard
// (DECISIONS 20): users and their passwords (argon2id), second factors
// (TOTP with recovery codes), roles per tenant, sign-in with lockout,
// sessions, and one-time links (invitations, password resets, first
// passwords). It imports only the domain; invoicing.Service embeds it.
package people
