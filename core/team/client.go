package team

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/spaces"
)

// Client talks to a team server for one member: [space] server and the member's token.
type Client struct {
	// URL is the server's base URL (https://host:port, or http:// on loopback).
	URL string
	// Space is [space] team: the team space, "" for the member's only one.
	Space string
	token string
	http  *http.Client
}

// The routes of the team API (web/team.go serves them).
const (
	routeWhoami  = "/team/v1/whoami"
	routeSearch  = "/team/v1/search"
	routeComment = "/team/v1/comment"
	routeImport  = "/team/v1/import"
)

// NewClient checks a server URL and a token and returns their client. A plain http:// URL is
// refused unless it names this machine (a token must not cross a network in clear).
func NewClient(server, space, token string) (*Client, error) {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.RawQuery != "" {
		return nil, errs.Invalidf("space.server = %q is not an https://HOST:PORT URL", server)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return nil, errs.Invalidf("space.server = %q: plain http is for a server on this machine only; use https://", server)
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return nil, errs.Invalidf("space.server is set but no member token was given")
	}
	if _, ok := TokenID(token); !ok {
		return nil, errs.Invalidf("the team token is not one 'cairn serve member add' prints (cairn_<id>_<secret>)")
	}
	return &Client{URL: strings.TrimRight(server, "/"), Space: space, token: token,
		http: &http.Client{Timeout: 60 * time.Second}}, nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ReadTokenFile reads a token file, refusing one others may read or write.
func ReadTokenFile(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", errs.Wrap(errs.Invalid, err, "token file")
	}
	if !fi.Mode().IsRegular() {
		return "", errs.Invalidf("token file %s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", errs.Invalidf("token file %s has mode %04o; it must be readable by you alone: chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", errs.Wrap(errs.Invalid, err, "token file")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", errs.Wrap(errs.Invalid, err, "token file")
	}
	return strings.TrimSpace(string(data)), nil
}

// Whoami is the member the token belongs to.
func (c *Client) Whoami(ctx context.Context) (Member, error) {
	var m Member
	err := c.do(ctx, http.MethodGet, routeWhoami, "", nil, &m)
	return m, err
}

// Search asks the server, as SearchWorkspaceTasks: task is the caller's current task (left out).
func (c *Client) Search(ctx context.Context, task string, in spaces.SearchInput) (spaces.Answer, error) {
	body, err := json.Marshal(SearchRequest{Space: c.Space, Task: task, Input: in})
	if err != nil {
		return spaces.Answer{}, err
	}
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, routeSearch, "application/json", body, &raw); err != nil {
		return spaces.Answer{}, err
	}
	return decodeAnswer(raw, in)
}

// decodeAnswer turns a server's answer back into the shape it came from.
func decodeAnswer(raw json.RawMessage, in spaces.SearchInput) (spaces.Answer, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return spaces.Answer{}, fmt.Errorf("team server answer: %w", err)
	}
	switch {
	case keys["available"] != nil:
		var u spaces.Unavailable
		err := json.Unmarshal(raw, &u)
		return spaces.Answer{Unavailable: &u}, err
	case keys["target"] != nil:
		var a spaces.AroundResult
		err := json.Unmarshal(raw, &a)
		a.Context = in.Context
		return spaces.Answer{Around: &a}, err
	}
	var r spaces.SearchResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return spaces.Answer{}, fmt.Errorf("team server answer: %w", err)
	}
	terms := spaces.SplitQuery(in.Query)
	for i := range r.Hits {
		r.Hits[i].Terms = terms
	}
	if r.Hits == nil {
		r.Hits = []spaces.Hit{}
	}
	return spaces.Answer{Search: &r}, nil
}

// AddComment adds one comment to a task of the team space.
func (c *Client) AddComment(ctx context.Context, cm spaces.Comment) (spaces.AddedComment, error) {
	body, err := json.Marshal(CommentRequest{Space: c.Space, Comment: cm})
	if err != nil {
		return spaces.AddedComment{}, err
	}
	var out struct {
		Comment spaces.AddedComment `json:"comment"`
	}
	err = c.do(ctx, http.MethodPost, routeComment, "application/json", body, &out)
	return out.Comment, err
}

// Import sends one batch (lines of the space import format) to space.
func (c *Client) Import(ctx context.Context, space string, jsonl []byte) (spaces.BatchReport, error) {
	var rep spaces.BatchReport
	route := routeImport
	if space != "" {
		route += "?space=" + url.QueryEscape(space)
	}
	err := c.do(ctx, http.MethodPost, route, "application/x-ndjson", jsonl, &rep)
	return rep, err
}

// do sends one request and decodes the answer or its coded error. A server that cannot be reached
// or answers 5xx is STORAGE_BUSY (retry later); a refused token is FORBIDDEN.
func (c *Client) do(ctx context.Context, method, route, ctype string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+route, rd)
	if err != nil {
		return errs.Wrap(errs.Invalid, err, "team server request")
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if stopped := errs.Stopped(ctx, "team server request"); stopped != nil {
			return stopped
		}
		return errs.Wrap(errs.Busy, err, "team server %s unreachable", c.URL)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return errs.Wrap(errs.Busy, err, "read the team server's answer")
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("team server answer: %w", err)
		}
		return nil
	}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	_ = json.Unmarshal(data, &e)
	msg := e.Error.Message
	if msg == "" {
		msg = strings.TrimSpace(string(data))
		if len(msg) > 200 {
			msg = msg[:200]
		}
	}
	msg = "team server: " + msg
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return &StatusError{Status: resp.StatusCode, Err: errs.New(errs.Forbidden, "%s (the token was refused: wrong, or its member removed)", msg)}
	case resp.StatusCode >= 500 && e.Error.Code != "INTERNAL" || e.Error.Code == "STORAGE_BUSY":
		return &StatusError{Status: resp.StatusCode, Err: errs.New(errs.Busy, "%s", msg)}
	}
	return &StatusError{Status: resp.StatusCode, Err: errs.New(codeNamed(e.Error.Code), "%s", msg)}
}

// StatusError is a server's refusal with its HTTP status.
type StatusError struct {
	Status int
	Err    error
}

func (e *StatusError) Error() string { return e.Err.Error() }
func (e *StatusError) Unwrap() error { return e.Err }

// codeNamed is the code of an error name.
func codeNamed(name string) errs.Code {
	for _, c := range []errs.Code{errs.Invalid, errs.NotFound, errs.Busy, errs.Forbidden, errs.Cancelled} {
		if c.Name() == name {
			return c
		}
	}
	return errs.Internal
}

// retryable reports whether a push may try a failed batch again: the server could not be
// reached, or was busy.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status >= 500 || errs.CodeOf(err) == errs.Busy
	}
	return errs.CodeOf(err) == errs.Busy
}
