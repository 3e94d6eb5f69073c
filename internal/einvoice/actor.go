package einvoice

import "context"

// ActorKind is what made a change (DECISIONS 20): a person, a program's
// key, the buyer's request page, an administration command, or the
// service's own loops.
type ActorKind string

// The kinds of actors.
const (
	ActorUser        ActorKind = "user"
	ActorKey         ActorKind = "key"
	ActorRequestPage ActorKind = "request_page"
	ActorCLI         ActorKind = "cli"
	ActorService     ActorKind = "service"
)

// Actor is who makes a request's changes and from where: the audit log's
// "who", and the name a document's history shows.
type Actor struct {
	Kind ActorKind
	// ID is the user's or the key's id; "" for the other kinds.
	ID string
	// Name is what a person reads: the user's name and e-mail, the key's
	// name (or prefix), "buyer request page", the command, "service".
	Name string
	// Email is the user's e-mail.
	Email string
	// TenantID is the tenant the request acts on ("" when none yet).
	TenantID string
	// Address and UserAgent are where the request came from.
	Address   string
	UserAgent string
}

// actorBox is the request's actor, filled by whichever layer authenticates
// and read by the layer that made the box (the audit of a request).
type actorBox struct{ a *Actor }

type actorKey struct{}

// WithActorBox returns a context whose actor, once set by WithActor below it
// in the same request, the caller reads with the returned function.
func WithActorBox(ctx context.Context) (context.Context, func() (Actor, bool)) {
	b := &actorBox{}
	return context.WithValue(ctx, actorKey{}, b), func() (Actor, bool) {
		if b.a == nil {
			return Actor{}, false
		}
		return *b.a, true
	}
}

// WithActor returns a context carrying the actor (and tells a box made
// above it, so that the request's audit sees who it was).
func WithActor(ctx context.Context, a Actor) context.Context {
	if b, ok := ctx.Value(actorKey{}).(*actorBox); ok && b.a == nil {
		b.a = &a
		return ctx
	}
	return context.WithValue(ctx, actorKey{}, &actorBox{a: &a})
}

// ActorOf returns the context's actor, if any.
func ActorOf(ctx context.Context) (Actor, bool) {
	if b, ok := ctx.Value(actorKey{}).(*actorBox); ok && b.a != nil {
		return *b.a, true
	}
	return Actor{}, false
}
