package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
	"github.com/cairn-dev/cairn/core/team"
	"github.com/cairn-dev/cairn/core/tools"
)

// The team API (docs/team.md): every route needs a member's token as "Authorization: Bearer
// <token>" (never in a URL), and answers {"error": {code, message}} as /api does.
const (
	TeamPrefix      = "/team/v1/"
	TeamWhoami      = TeamPrefix + "whoami"
	TeamSearch      = TeamPrefix + "search"
	TeamComment     = TeamPrefix + "comment"
	TeamImport      = TeamPrefix + "import"
	MaxTeamJSON     = 1 << 20  // a search or one comment
	MaxImportBody   = 16 << 20 // one batch of a push
	maxImportLine   = 4 << 20  // one record of a batch
	teamUnauthorize = "UNAUTHORIZED"
)

// TeamHandler answers the team API for the members of a team.Server; it is safe for concurrent use.
type TeamHandler struct {
	srv *team.Server
	log *log.Logger
}

// NewTeam serves srv; log receives one line per request (route, status, duration, the member's
// user and counts), never a token, a query or a record.
func NewTeam(srv *team.Server, logw io.Writer) *TeamHandler {
	if logw == nil {
		logw = io.Discard
	}
	return &TeamHandler{srv: srv, log: log.New(logw, "cairn serve: ", 0)}
}

// WithTeam routes the team API to t and everything else to h.
func WithTeam(h http.Handler, t *TeamHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, TeamPrefix) || r.URL.Path == strings.TrimSuffix(TeamPrefix, "/") {
			t.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP authenticates the member, then answers the route.
func (t *TeamHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	user, counts := "-", ""
	route := "unknown"
	switch r.URL.Path {
	case TeamWhoami, TeamSearch, TeamComment, TeamImport:
		route = strings.TrimPrefix(r.URL.Path, TeamPrefix)
	}
	status, body := func() (status int, body any) {
		defer func() {
			if p := recover(); p != nil {
				status, body = errorBody(fmt.Errorf("team %s failed unexpectedly: %v", route, p))
			}
		}()
		if r.URL.Query().Has("token") {
			return errorBody(&statusError{http.StatusBadRequest, errs.Invalid.Name(), "a token never goes in a URL: send it as \"Authorization: Bearer <token>\""})
		}
		var pre *teamBody
		if route == "search" && r.Method == http.MethodPost {
			// A search's token and search share one database connection (Server.Hold), so its
			// body is read first: the connection then waits for nobody's network. Whatever is
			// wrong with the body is answered where it was before, after the token.
			pre = &teamBody{}
			pre.data, pre.err = readTeamJSON(w, r)
			ctx, release := t.srv.Hold(r.Context())
			defer release()
			r = r.WithContext(ctx)
		}
		m, err := t.member(r)
		if err != nil {
			if errors.Is(err, team.ErrUnauthorized) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="cairn team"`)
				return errorBody(&statusError{http.StatusUnauthorized, teamUnauthorize, "missing, wrong or revoked token: send \"Authorization: Bearer <token>\" with the token 'cairn serve member add' printed"})
			}
			return errorBody(err)
		}
		user = m.User
		want := http.MethodPost
		if route == "whoami" {
			want = http.MethodGet
		}
		if route == "unknown" {
			return errorBody(errs.NotFoundf("no team route %s; routes: %s, %s, %s, %s", r.URL.Path, TeamWhoami, TeamSearch, TeamComment, TeamImport))
		}
		if r.Method != want {
			w.Header().Set("Allow", want)
			return errorBody(&statusError{http.StatusMethodNotAllowed, errs.Invalid.Name(), fmt.Sprintf("use %s %s", want, r.URL.Path)})
		}
		out, err := t.answer(w, r, route, m, pre)
		if err != nil {
			return errorBody(err)
		}
		counts = teamCounts(out)
		return http.StatusOK, out
	}()
	writeTeamJSON(w, status, body)
	t.log.Printf("team %s %d %s user=%s%s", route, status, time.Since(start).Round(time.Microsecond), safeUser(user), counts)
}

// member authenticates the bearer token.
func (t *TeamHandler) member(r *http.Request) (team.Member, error) {
	auth := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(auth) < len(prefix) || !strings.EqualFold(auth[:len(prefix)], prefix) {
		return team.Member{}, team.ErrUnauthorized
	}
	return t.srv.Authenticate(r.Context(), strings.TrimSpace(auth[len(prefix):]))
}

// teamBody is a request body read before its token was checked, and what reading it failed with.
type teamBody struct {
	data []byte
	err  error
}

// answer runs one route for m; pre is the body when it was read already.
func (t *TeamHandler) answer(w http.ResponseWriter, r *http.Request, route string, m team.Member, pre *teamBody) (any, error) {
	ctx := r.Context()
	switch route {
	case "whoami":
		return m, nil
	case "search":
		var req team.SearchRequest
		if pre == nil {
			pre = &teamBody{}
			pre.data, pre.err = readTeamJSON(w, r)
		}
		if pre.err != nil {
			return nil, pre.err
		}
		if err := decodeJSONBody(pre.data, &req); err != nil {
			return nil, err
		}
		ans, err := t.srv.Search(ctx, m, req)
		if err != nil {
			return nil, err
		}
		return ans.Value(), nil
	case "comment":
		return teamCall(w, r, func(req team.CommentRequest) (any, error) {
			added, err := t.srv.AddComment(ctx, m, req)
			return map[string]any{"comment": added}, err
		})
	default: // import
		b, err := spaces.ReadBatch(http.MaxBytesReader(w, r.Body, MaxImportBody), maxImportLine)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, &statusError{http.StatusRequestEntityTooLarge, errs.Invalid.Name(), fmt.Sprintf("a batch is at most %d bytes; nothing was imported", MaxImportBody)}
			}
			return nil, err
		}
		return t.srv.Import(ctx, m, r.URL.Query().Get("space"), b)
	}
}

// teamCall answers a JSON request: its body decoded into Req, then served.
func teamCall[Req any](w http.ResponseWriter, r *http.Request, serve func(Req) (any, error)) (any, error) {
	var req Req
	if err := decodeTeamJSON(w, r, &req); err != nil {
		return nil, err
	}
	return serve(req)
}

// decodeTeamJSON reads a capped JSON body into v, refusing unknown fields and trailing data.
func decodeTeamJSON(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := readTeamJSON(w, r)
	if err != nil {
		return err
	}
	return decodeJSONBody(data, v)
}

// readTeamJSON reads a request body of at most MaxTeamJSON bytes.
func readTeamJSON(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxTeamJSON))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &statusError{http.StatusRequestEntityTooLarge, errs.Invalid.Name(), fmt.Sprintf("request body is larger than %d bytes", MaxTeamJSON)}
		}
		return nil, errs.Wrap(errs.Invalid, err, "read request body")
	}
	return data, nil
}

// decodeJSONBody decodes one JSON object into v, refusing unknown fields and trailing data.
func decodeJSONBody(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errs.Invalidf("request body: %s", tools.DecodeProblem(err))
	}
	if dec.More() {
		return errs.Invalidf("request body: one JSON object, then nothing")
	}
	return nil
}

// teamCounts is what a log line says of an answer: numbers only.
func teamCounts(out any) string {
	switch v := out.(type) {
	case *spaces.SearchResult:
		return fmt.Sprintf(" hits=%d", len(v.Hits))
	case *spaces.AroundResult:
		return fmt.Sprintf(" comments=%d", len(v.Comments))
	case spaces.BatchReport:
		return fmt.Sprintf(" tasks=%d comments=%d existing=%d", v.Tasks, v.Comments, v.Existing)
	}
	return ""
}

// safeUser is a user name as a log line may hold it (names are checked when added).
func safeUser(u string) string {
	for _, r := range u {
		if r <= ' ' || r > '~' {
			return "?"
		}
	}
	return u
}

// writeTeamJSON writes an answer as indented JSON, as /api does.
func writeTeamJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := encodeIndented(&buf, v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		_ = json.NewEncoder(&buf).Encode(tools.ErrorOf(fmt.Errorf("encode answer: %w", err)))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
