package team

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/redact"
	"github.com/cairn-dev/cairn/core/spaces"
)

// ErrUnauthorized is a missing, malformed, wrong or revoked token: the HTTP face answers 401.
var ErrUnauthorized = errs.New(errs.Forbidden, "the token is missing, wrong or revoked")

// Server is the team server's domain over a Store: who a token belongs to, and the space
// operations bounded by that member's spaces. It is safe for concurrent use.
type Server struct {
	st       Store
	redactor *redact.Redactor
}

// NewServer serves st.
func NewServer(st Store) *Server { return &Server{st: st, redactor: redact.New()} }

// Store is the server's store.
func (s *Server) Store() Store { return s.st }

// holder is a store whose calls can share one database connection (the PostgreSQL store).
type holder interface {
	Hold(ctx context.Context) (context.Context, func())
}

// Hold is for a request that authenticates its member and then searches: with a store that can
// (the PostgreSQL one), the calls made with the returned context share one database connection,
// so the request waits for the store's pool once. release ends it; the context is for one
// request's calls, made one at a time. With the SQLite store it changes nothing.
func (s *Server) Hold(ctx context.Context) (held context.Context, release func()) {
	if h, ok := s.st.(holder); ok {
		return h.Hold(ctx)
	}
	return ctx, func() {}
}

// userPattern is what a member's user name may be: it is shown in lists and logs.
var userPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)
})

// AddMember adds user with its spaces and returns its token, which is never shown again.
func (s *Server) AddMember(ctx context.Context, user string, spaceIDs []string) (token string, m Member, err error) {
	if !userPattern().MatchString(user) {
		return "", Member{}, errs.Invalidf("user %q: a user is 1..64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit", user)
	}
	seen := map[string]bool{}
	var list []string
	for _, sp := range spaceIDs {
		sp = strings.TrimSpace(sp)
		if sp == "" || seen[sp] {
			continue
		}
		if !validSpace(sp) {
			return "", Member{}, errs.Invalidf("space %q: a space id is 1..200 bytes without white space, control characters or ':'", sp)
		}
		seen[sp] = true
		list = append(list, sp)
	}
	sort.Strings(list)
	key, err := s.st.Key(ctx)
	if err != nil {
		return "", Member{}, err
	}
	token, id, err := NewToken()
	if err != nil {
		return "", Member{}, err
	}
	if err := s.st.AddMember(ctx, user, list, id, TokenMAC(key, token)); err != nil {
		return "", Member{}, err
	}
	return token, Member{User: user, Spaces: list, Created: time.Now().UTC().Format(time.RFC3339)}, nil
}

// validSpace is a space id the space import format accepts.
func validSpace(sp string) bool {
	if len(sp) > 200 {
		return false
	}
	for _, r := range sp {
		if r <= ' ' || r == ':' || r == 0x7f {
			return false
		}
	}
	return true
}

// Authenticate is the member a token belongs to; anything else is ErrUnauthorized. The MAC is
// computed and compared in constant time whether or not the id is known.
func (s *Server) Authenticate(ctx context.Context, token string) (Member, error) {
	key, err := s.st.Key(ctx)
	if err != nil {
		return Member{}, err
	}
	got := TokenMAC(key, token)
	id, ok := TokenID(token)
	if !ok {
		return Member{}, ErrUnauthorized
	}
	m, want, err := s.st.Member(ctx, id)
	if errs.CodeOf(err) == errs.NotFound {
		macEqual(got, got) // the same work as a known id
		return Member{}, ErrUnauthorized
	}
	if err != nil {
		return Member{}, err
	}
	if !macEqual(got, want) {
		return Member{}, ErrUnauthorized
	}
	return m, nil
}

// space is the space a member's request is about: the one it names, which the member must be in
// (FORBIDDEN otherwise), or the member's only space.
func (m Member) space(space string) (string, error) {
	if space == "" {
		switch len(m.Spaces) {
		case 0:
			return "", errs.New(errs.Forbidden, "user %q is a member of no space", m.User)
		case 1:
			return m.Spaces[0], nil
		}
		return "", errs.Invalidf("user %q is a member of %d spaces (%s): name one%s", m.User, len(m.Spaces), strings.Join(m.Spaces, ", "), errs.Field("space", errs.Give))
	}
	if !m.In(space) {
		return "", errs.New(errs.Forbidden, "user %q is not a member of space %s", m.User, space)
	}
	return space, nil
}

// SearchRequest is a search sent to the server: the space (optional when the member has one),
// the caller's current task (left out of the hits, optional) and SearchWorkspaceTasks' input.
type SearchRequest struct {
	Space string             `json:"space,omitempty"`
	Task  string             `json:"task,omitempty"`
	Input spaces.SearchInput `json:"input"`
}

// Search answers SearchWorkspaceTasks for m in its space.
func (s *Server) Search(ctx context.Context, m Member, req SearchRequest) (spaces.Answer, error) {
	space, err := m.space(req.Space)
	if err != nil {
		return spaces.Answer{}, err
	}
	return s.st.Search(ctx, space, strings.TrimPrefix(req.Task, "task:"), req.Input)
}

// CommentRequest is an add-comment sent to the server. The author is always the member.
type CommentRequest struct {
	Space   string         `json:"space,omitempty"`
	Comment spaces.Comment `json:"comment"`
}

// AddComment adds one comment, by m, to a task of its space: its text without private regions
// and redacted, as every record a server keeps.
func (s *Server) AddComment(ctx context.Context, m Member, req CommentRequest) (spaces.AddedComment, error) {
	space, err := m.space(req.Space)
	if err != nil {
		return spaces.AddedComment{}, err
	}
	c := req.Comment
	c.Task = spaces.ID(strings.TrimPrefix(string(c.Task), "task:"))
	c.ID = spaces.ID(strings.TrimPrefix(string(c.ID), "comment:"))
	c.Author = m.User
	if c.Kind == "" {
		c.Kind = "comment"
	}
	if c.CreatedAt == "" {
		c.CreatedAt = time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
	}
	if c.Attachments == nil {
		c.Attachments = []string{}
	}
	s.clean(&c)
	return s.st.AddComment(ctx, space, c)
}

// Import writes a member's batch into space (its only one when "").
func (s *Server) Import(ctx context.Context, m Member, space string, b spaces.Batch) (spaces.BatchReport, error) {
	space, err := m.space(space)
	if err != nil {
		return spaces.BatchReport{}, err
	}
	for i := range b.Tasks {
		b.Tasks[i].Title = s.redactor.Text(spaces.DropPrivate(b.Tasks[i].Title))
	}
	for i := range b.Comments {
		s.clean(&b.Comments[i])
	}
	return s.st.Import(ctx, space, b)
}

// clean drops a comment's private regions and redacts its body, author and attachment names:
// a client sends them so already (Outgoing), and the server keeps nothing else whoever sent it.
func (s *Server) clean(c *spaces.Comment) {
	c.Body = s.redactor.Text(spaces.DropPrivate(c.Body))
	c.Author = s.redactor.Text(c.Author)
	for i, a := range c.Attachments {
		c.Attachments[i] = s.redactor.Text(a)
	}
}
