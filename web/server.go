package web

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cairn-dev/cairn/core/jsonscan"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/core/workers"
	"github.com/cairn-dev/cairn/core/workspace"
)

// MaxBodyBytes caps a request body, so one client cannot make the daemon buffer without limit.
const MaxBodyBytes = 1 << 20

// Options is what a Handler needs; the caller opens the workspace and loads the board once.
type Options struct {
	// Workspace is the opened workspace; its [board] switches apply to every search.
	Workspace *workspace.Workspace
	// Index is the board as loaded at start, nil when there is none yet; the handler's stores
	// (tools.Keep) replace it when the files change, or load it once a board has been imported.
	Index *board.Index
	// Tools is the identity every tool call runs with (the daemon's flags, as for cairn mcp);
	// with Tools.Stores nil, the handler keeps the stores itself (tools.Keep, from Index) and
	// Close releases them.
	Tools tools.Context
	// Registry holds the tools callable by name; nil means tools.New().
	Registry *tools.Registry
	// Token is the secret every /api request must carry as "Authorization: Bearer <token>".
	Token string
	// Addr is the address served (the listener's, HOST:PORT). Every request's Host, and its
	// Origin when it has one, must name it or localhost (127.0.0.1, ::1) on its port, else 403:
	// a page whose name was rebound to this machine (DNS rebinding) reaches nothing. Served on
	// an unspecified address (0.0.0.0, ::, --allow-remote), any host on its port is allowed.
	// "" checks nothing (tests that build a handler without a listener).
	Addr string
	// Log receives one line per API request with its action, status, duration and counts — never
	// the query or any input text: what people search for stays private. Nil discards.
	Log io.Writer
}

// Handler serves POST /api and the embedded Search page; it is safe for concurrent use.
type Handler struct {
	tc     tools.Context
	reg    *tools.Registry
	token  []byte
	log    *log.Logger
	static http.Handler
	addr   string
	kept   *tools.Kept   // the stores every action reads, when the handler keeps them itself
	cpu    chan struct{} // one slot per processor for searches
	bufs   sync.Pool     // *bytes.Buffer for answers, reused so each is not grown again
	// calls runs each action on a kept goroutine: a request on a new connection comes on a
	// fresh one, whose stack a space search grew and copied (workers.Pool).
	calls *workers.Pool
}

// New builds the handler around an already loaded board.
func New(opts Options) (*Handler, error) {
	if opts.Workspace == nil {
		return nil, errors.New("web: a workspace is required")
	}
	if len(opts.Token) < 16 {
		return nil, errors.New("web: the token must be at least 16 characters")
	}
	reg := opts.Registry
	if reg == nil {
		reg = tools.New()
	}
	out := opts.Log
	if out == nil {
		out = io.Discard
	}
	tc := opts.Tools
	if tc.Workspace == nil {
		tc.Workspace = opts.Workspace
	}
	static, err := staticHandler()
	if err != nil {
		return nil, err
	}
	h := &Handler{tc: tc, reg: reg, token: []byte(opts.Token), log: log.New(out, "cairn serve: ", 0), static: static, addr: opts.Addr,
		cpu: make(chan struct{}, runtime.GOMAXPROCS(0)), calls: workers.New()}
	if h.tc.Stores == nil {
		// Every board action and flowly_search answer from the index in memory, narrowed in
		// the background so no request waits for it; spaces.db and session logs stay open too.
		h.kept = tools.Keep(opts.Workspace, tools.KeepOptions{Board: opts.Index, NarrowLater: true, Reloaded: func(ix *board.Index) {
			h.log.Printf("board reloaded: revision %d, %d cards", ix.Revision(), ix.Stats().Cards)
		}})
		h.tc.Stores = h.kept
	}
	if h.tc.Queue == nil {
		h.tc.Queue = h.queue
	}
	return h, nil
}

// Reloads counts how many times the board was rebuilt since start, for tests and diagnostics
// (0 when the caller gave the stores).
func (h *Handler) Reloads() int64 {
	if h.kept == nil {
		return 0
	}
	return h.kept.Reloads()
}

// Close releases the stores the handler keeps (none when the caller gave them) and its workers,
// once the server has stopped.
func (h *Handler) Close() {
	h.calls.Close()
	if h.kept != nil {
		h.kept.Close()
	}
}

// ServeHTTP routes /api to the API and everything else to the page.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if why := h.foreignHost(r); why != "" {
		h.log.Printf("refused a request for %s: %s", r.URL.Path, why)
		http.Error(w, "403 Forbidden: "+why, http.StatusForbidden)
		return
	}
	if r.URL.Path == "/api" {
		h.serveAPI(w, r)
		return
	}
	h.static.ServeHTTP(w, r)
}

// foreignHost is why r names a host this daemon does not serve (its Host header, or its Origin
// when it has one), "" when it names the address served or localhost on its port.
func (h *Handler) foreignHost(r *http.Request) string {
	if h.addr == "" {
		return ""
	}
	if !h.servedHost(r.Host, "80") {
		return fmt.Sprintf("Host %q is not the address served (%s) or localhost", clipHeader(r.Host), h.addr)
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !h.servedHost(u.Host, map[string]string{"http": "80", "https": "443"}[u.Scheme]) {
			return fmt.Sprintf("Origin %q is not the address served (%s) or localhost", clipHeader(origin), h.addr)
		}
	}
	return ""
}

// servedHost reports whether hostport (a Host header, an Origin's host) is the address served
// or a loopback name on its port.
func (h *Handler) servedHost(hostport, defaultPort string) bool {
	sHost, sPort, err := net.SplitHostPort(h.addr)
	if err != nil {
		return false
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, defaultPort // no port: the scheme's
	}
	if port != sPort {
		return false
	}
	host = strings.Trim(host, "[]")
	if ip := net.ParseIP(strings.Trim(sHost, "[]")); ip != nil && ip.IsUnspecified() {
		return true // --allow-remote on every interface: the API's token is the gate
	}
	return strings.EqualFold(host, strings.Trim(sHost, "[]")) || IsLoopback(host)
}

// clipHeader bounds a header quoted in a refusal.
func clipHeader(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// request is the body of POST /api.
type request struct {
	Action string          `json:"action"`
	Input  json.RawMessage `json:"input"`
}

// statusError is an API failure that has no core code (authentication, method, size).
type statusError struct {
	status int
	code   string
	msg    string
}

func (e *statusError) Error() string { return e.msg }

func (h *Handler) serveAPI(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	action := "-"
	var counts string
	status, body := func() (int, any) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			return errorBody(&statusError{http.StatusMethodNotAllowed, errs.Invalid.Name(), "use POST /api with {\"action\": NAME, \"input\": {...}}"})
		}
		if !h.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
			return errorBody(&statusError{http.StatusUnauthorized, "UNAUTHORIZED", "missing or wrong token: send \"Authorization: Bearer <token>\" with the token in .cairn/serve.token"})
		}
		req, err := decodeRequest(w, r, h.reg)
		if err != nil {
			return errorBody(err)
		}
		action = req.Action
		out, err := h.safeDispatch(r.Context(), req)
		if err != nil {
			return errorBody(err)
		}
		counts = countsOf(out)
		return http.StatusOK, out
	}()
	h.writeJSON(w, status, body)
	// Durations and counts only: the query and any other input never reach the log.
	h.log.Printf("%s %d %s%s", safeAction(action, h), status, time.Since(start).Round(time.Microsecond), counts)
}

// safeAction logs an action name only when it is a known one, so input cannot be smuggled into
// the log through the action field.
func safeAction(a string, h *Handler) string {
	if a == "-" || h.reg.Action(a) != nil {
		return a
	}
	return "unknown"
}

// authorized compares the bearer token in constant time.
func (h *Handler) authorized(r *http.Request) bool {
	auth := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(auth) < len(prefix) || !strings.EqualFold(auth[:len(prefix)], prefix) {
		return false
	}
	got := []byte(strings.TrimSpace(auth[len(prefix):]))
	return subtle.ConstantTimeCompare(got, h.token) == 1
}

// decodeRequest reads the capped body and checks the envelope.
func decodeRequest(w http.ResponseWriter, r *http.Request, reg *tools.Registry) (*request, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &statusError{http.StatusRequestEntityTooLarge, errs.Invalid.Name(), fmt.Sprintf("request body is larger than %d bytes", MaxBodyBytes)}
		}
		return nil, errs.Wrap(errs.Invalid, err, "read request body")
	}
	var req request
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, errs.Invalidf("request body must be {\"action\": NAME, \"input\": {...}}: %s", tools.DecodeProblem(err))
	}
	if dec.More() {
		return nil, errs.Invalidf("request body must hold one JSON object")
	}
	if req.Action == "" {
		return nil, errs.Invalidf("request body needs an \"action\" (%s, or a tool name)", strings.Join(reg.Actions(), ", "))
	}
	return &req, nil
}

// safeDispatch turns a panic in an action into an INTERNAL answer, so a bug in one tool costs one
// request, not a stack trace on stderr and a dropped connection.
func (h *Handler) safeDispatch(ctx context.Context, req *request) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%s failed unexpectedly: %v", safeAction(req.Action, h), p)
		}
	}()
	return h.dispatch(ctx, req)
}

// dispatch answers an action: an operation of the registry (an agent tool, or an action of the
// Search page), called with the daemon's caller.
func (h *Handler) dispatch(ctx context.Context, req *request) (any, error) {
	op := h.reg.Action(req.Action)
	if op == nil {
		return nil, errs.NotFoundf("unknown action %q; actions: %s, and every tool of 'cairn tools list'", req.Action, strings.Join(h.reg.Actions(), ", "))
	}
	input := bytes.TrimSpace(req.Input)
	if string(input) == "null" {
		input = nil // a missing input is {}
	}
	var out any
	var err error
	h.calls.Do(func() { out, err = op.Call(ctx, h.tc, input) })
	return out, err
}

// queue waits for one of the processors' slots, so under load searches take turns in arrival
// order instead of all slowing down together (same throughput, a much shorter tail).
func (h *Handler) queue(ctx context.Context) (func(), error) {
	select {
	case h.cpu <- struct{}{}:
		return func() { <-h.cpu }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("search: %w", ctx.Err())
	}
}

// httpStatus maps an error code to the HTTP status of the API.
func httpStatus(c errs.Code) int {
	switch c {
	case errs.Invalid:
		return http.StatusBadRequest
	case errs.NotFound:
		return http.StatusNotFound
	case errs.Busy:
		return http.StatusServiceUnavailable
	case errs.Forbidden:
		return http.StatusForbidden
	default:
		return http.StatusInternalServerError
	}
}

// errorBody renders a failure as {"error": {"code", "message"}} with its status.
func errorBody(err error) (int, any) {
	var se *statusError
	if errors.As(err, &se) {
		return se.status, tools.ErrorBody{Error: tools.ErrorDetail{Code: se.code, Message: se.msg}}
	}
	return httpStatus(errs.CodeOf(err)), tools.ErrorOf(err)
}

// writeJSON encodes v exactly as the CLI's --json does (indented, HTML not escaped, final
// newline), so an answer can be compared byte for byte with cairn board search --json.
func (h *Handler) writeJSON(w http.ResponseWriter, status int, v any) {
	buf, _ := h.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = bytes.NewBuffer(make([]byte, 0, 64<<10))
	}
	defer func() {
		if buf.Cap() <= MaxBodyBytes { // a rare huge answer is not kept
			buf.Reset()
			h.bufs.Put(buf)
		}
	}()
	if err := encodeIndented(buf, v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		_ = json.NewEncoder(buf).Encode(tools.ErrorOf(fmt.Errorf("encode answer: %w", err)))
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// encodeIndented writes v as a json.Encoder with SetEscapeHTML(false) and SetIndent("", "  ")
// does, byte for byte: it encodes compactly and indents with indentJSON, a plain loop over the
// bytes, where the Encoder's own indenting runs its JSON scanner over every byte again.
func encodeIndented(buf *bytes.Buffer, v any) error {
	if e, ok := v.(tools.Encoded); ok {
		v = e.Value // its JSON escapes HTML, which this encoding does not
	}
	if r, ok := v.(*board.Result); ok && r != nil {
		// The search answer, most of the daemon's traffic, is written field by field.
		w := indentWriter{b: buf.AvailableBuffer()}
		w.result(r)
		buf.Write(append(w.b, '\n'))
		return nil
	}
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	src := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
	buf.Grow(len(src) + len(src)/2)
	buf.Write(indentJSON(buf.AvailableBuffer(), src))
	buf.WriteByte('\n')
	return nil
}

// indentWriter writes a board.Result as encodeIndented does, without reflection or a second
// pass: the fields in their struct order under their JSON names, omitempty fields left out when
// empty, a nil slice or pointer as null, an empty slice as [].
type indentWriter struct {
	b     []byte
	depth int
	first bool // nothing written yet in the current object or array
}

func (w *indentWriter) newline() {
	w.b = append(w.b, '\n')
	for range w.depth {
		w.b = append(w.b, ' ', ' ')
	}
}

func (w *indentWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.first = true
}

func (w *indentWriter) close(c byte) {
	w.depth--
	w.newline()
	w.b = append(w.b, c)
	w.first = false
}

// item starts the next member of an object or array.
func (w *indentWriter) item() {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.newline()
}

func (w *indentWriter) key(k string) {
	w.item()
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':', ' ')
}

func (w *indentWriter) str(k, v string) {
	w.key(k)
	w.b = jsonscan.AppendString(w.b, v)
}

func (w *indentWriter) strOmitEmpty(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *indentWriter) boolean(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}

func (w *indentWriter) integer(k string, v int) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}

// list writes a slice of n elements (nil: null, none: []) with each(i) writing element i.
func (w *indentWriter) list(k string, isNil bool, n int, each func(i int)) {
	w.key(k)
	switch {
	case isNil:
		w.b = append(w.b, "null"...)
	case n == 0:
		w.b = append(w.b, '[', ']')
	default:
		w.open('[')
		for i := range n {
			w.item()
			each(i)
		}
		w.close(']')
	}
}

func (w *indentWriter) ranges(rs []board.Range) {
	w.list("ranges", rs == nil, len(rs), func(i int) {
		w.open('[')
		for _, n := range rs[i] {
			w.item()
			w.b = strconv.AppendInt(w.b, int64(n), 10)
		}
		w.close(']')
	})
}

func (w *indentWriter) result(r *board.Result) {
	w.open('{')
	w.list("cards", r.Cards == nil, len(r.Cards), func(i int) {
		c := &r.Cards[i]
		w.open('{')
		w.str("taskId", c.TaskID)
		w.str("projectId", c.ProjectID)
		w.str("projectTitle", c.ProjectTitle)
		if c.WorkspaceID == nil {
			w.key("workspaceId")
			w.b = append(w.b, "null"...)
		} else {
			w.str("workspaceId", *c.WorkspaceID)
		}
		w.str("title", c.Title)
		w.str("status", c.Status)
		w.strOmitEmpty("type", c.Type)
		w.boolean("archived", c.Archived)
		w.str("updatedAt", c.UpdatedAt)
		w.list("hits", c.Hits == nil, len(c.Hits), func(j int) {
			h := &c.Hits[j]
			w.open('{')
			w.str("source", string(h.Source))
			w.strOmitEmpty("refId", h.RefID)
			w.str("field", h.Field)
			w.str("snippet", h.Snippet)
			w.ranges(h.Ranges)
			w.strOmitEmpty("at", h.At)
			w.strOmitEmpty("status", h.Status)
			w.close('}')
		})
		w.close('}')
	})
	w.list("memory", r.Memory == nil, len(r.Memory), func(i int) {
		m := &r.Memory[i]
		w.open('{')
		w.str("id", m.ID)
		w.str("projectId", m.ProjectID)
		w.str("kind", m.Kind)
		w.str("title", m.Title)
		w.str("snippet", m.Snippet)
		w.ranges(m.Ranges)
		w.close('}')
	})
	w.boolean("truncated", r.Truncated)
	w.integer("total", r.Total)
	w.list("partial", r.Partial == nil, len(r.Partial), func(i int) {
		w.b = jsonscan.AppendString(w.b, r.Partial[i])
	})
	w.close('}')
}

// indentJSON appends src, compact JSON as encoding/json writes it (no white space outside
// strings), indented by two spaces per level as json.Indent does: an empty object or array stays
// "{}" or "[]", and a colon is followed by one space.
func indentJSON(dst, src []byte) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, c, src[i+1])
				i++
				continue
			}
			dst = append(dst, c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// countsOf summarises an answer for the log: numbers only.
func countsOf(v any) string {
	switch r := v.(type) {
	case *board.Result:
		return fmt.Sprintf(" cards=%d memory=%d truncated=%t", len(r.Cards), len(r.Memory), r.Truncated)
	case *board.AgentResult:
		return fmt.Sprintf(" cards=%d", len(r.Cards))
	case *tools.ProjectsAnswer:
		return fmt.Sprintf(" projects=%d", len(r.Projects))
	}
	return ""
}

// NewServer wraps h in an http.Server with a timeout on every phase of a connection, so a slow
// or stalled client cannot hold the daemon's resources.
func NewServer(addr string, h http.Handler, errorLog *log.Logger) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          errorLog,
	}
}
