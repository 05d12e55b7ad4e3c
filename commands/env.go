package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Env is what every command shares: the streams, the global flags and how to render.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// JSON is --json: one JSON document on stdout, errors included.
	JSON bool
	// Color is true when stdout is a terminal, NO_COLOR is unset and output is text.
	Color bool
	// StderrTTY says whether progress bars may be drawn.
	StderrTTY bool
	// StdoutTTY makes text output terminal-safe: the control characters of stored text (a task
	// subject, an imported issue title) are shown, not obeyed.
	StdoutTTY bool
	// Caller is the identity the global flags give (--session, --user, --task, ...).
	Caller workspace.Caller
	// terminal reports whether a stream is a terminal (isTerminal; tests pretend).
	terminal func(io.Writer) bool
	wsFlag   string
	wait     time.Duration
}

func newEnv(stdin io.Reader, stdout, stderr io.Writer) *Env {
	return &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, terminal: isTerminal}
}

// The help's headings of the global flags that are not every command's: which session log a
// task command reads, and who is asking, which an agent's runtime usually sets.
const (
	logCategory   = "Which session log (default: the agent session's own, else cairn.toml's):"
	agentCategory = "Who is asking (an agent's runtime or environment sets these; give them to search as that agent):"
)

// globalFlags are accepted before the family or after the command (argv normalisation moves them).
func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "workspace", Aliases: []string{"C"}, Usage: "workspace directory (default: nearest cairn.toml at or above the current directory)", EnvVars: []string{"CAIRN_WORKSPACE"}},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON document on stdout (errors too)"},
		&cli.DurationFlag{Name: "wait", Value: workspace.DefaultWait, Usage: "how long to wait for a lock before STORAGE_BUSY"},
		&cli.StringFlag{Name: "session", Category: logCategory, Usage: "session log file (default: sessions/ID.jsonl when CLAUDE_CODE_SESSION_ID=ID is set, else [session] log of cairn.toml)", EnvVars: []string{"CAIRN_SESSION"}},
		&cli.StringFlag{Name: "session-format", Category: logCategory, Usage: "session log format: auto (the first line that is a cairn entry or a Claude Code record decides), cairn, or claude (a Claude Code transcript, read-only)", Value: "auto", EnvVars: []string{"CAIRN_SESSION_FORMAT"}},
		&cli.StringFlag{Name: "list", Category: logCategory, Usage: "which task list of a runtime transcript to read: cairn (cairn's tools), tasks (Claude Code's TaskCreate/TaskUpdate), todos (TodoWrite), plan (Codex's update_plan), todowrite (OpenCode's todowrite), gemini-todos (Gemini CLI's write_todos), or auto (the one it used, cairn's first)", Value: "auto", EnvVars: []string{"CAIRN_LIST"}},
		&cli.StringFlag{Name: "user", Category: agentCategory, Usage: "the signed-in user (unset: no-auth context)", EnvVars: []string{"CAIRN_USER"}},
		&cli.StringFlag{Name: "task", Category: agentCategory, Usage: "the space task this agent runs in", EnvVars: []string{"CAIRN_TASK"}},
		&cli.BoolFlag{Name: "subtask", Category: agentCategory, Usage: "running as a subtask", EnvVars: []string{"CAIRN_SUBTASK"}},
		&cli.StringFlag{Name: "card", Category: agentCategory, Usage: "the board card this agent works on", EnvVars: []string{"CAIRN_CARD"}},
	}
}

// configure reads the global flags once, before any command runs.
func (e *Env) configure(c *cli.Context) error {
	e.JSON = c.Bool("json")
	e.wsFlag = c.String("workspace")
	e.wait = c.Duration("wait")
	if e.wait <= 0 || e.wait > time.Hour {
		return errs.Invalidf("--wait %s is out of range (1ms..1h)", e.wait)
	}
	e.Caller = workspace.Caller{
		Session:       c.String("session"),
		SessionFormat: c.String("session-format"),
		List:          c.String("list"),
		User:          c.String("user"),
		Task:          c.String("task"),
		Subtask:       c.Bool("subtask"),
		Card:          c.String("card"),
		// Claude Code sets it for Bash, hooks and MCP servers; it picks sessions/<id>.jsonl.
		ClaudeSession: runtimeSession(),
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	e.StdoutTTY = e.terminal(e.Stdout)
	e.Color = !e.JSON && !noColor && e.StdoutTTY
	e.StderrTTY = e.terminal(e.Stderr)
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// Workspace opens the workspace named by --workspace/CAIRN_WORKSPACE or found above the current directory.
func (e *Env) Workspace() (*workspace.Workspace, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("current directory: %w", err)
	}
	ws, err := workspace.Open(e.wsFlag, cwd)
	if err != nil {
		return nil, err
	}
	ws.Wait = e.wait
	return ws, nil
}

// Render prints v as JSON with --json, else calls text to write the human form. On a terminal
// the text goes through terminalSafe, so text read from stores (a task subject, an imported
// issue title) cannot move the cursor, retitle the window or write the clipboard; piped output
// keeps its bytes exactly.
func (e *Env) Render(v any, text func(w io.Writer) error) error {
	if e.JSON {
		return e.writeJSON(e.Stdout, v)
	}
	if !e.StdoutTTY {
		return text(e.Stdout)
	}
	var buf strings.Builder
	err := text(&buf)
	if _, werr := io.WriteString(e.Stdout, terminalSafe(buf.String(), e.Color)); err == nil {
		err = werr
	}
	return err
}

// terminalSafe is termText for a command's whole text output: with colour on, the styles cairn
// writes itself (Bold, Dim, Mark) pass, and every other escape is shown as \x1b.
func terminalSafe(s string, color bool) string {
	if !color {
		return termText(s)
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, 0x1b)
		if i < 0 {
			b.WriteString(termText(s))
			return b.String()
		}
		b.WriteString(termText(s[:i]))
		s = s[i:]
		n := ownStyle(s)
		if n == 0 {
			b.WriteString(`\x1b`)
			n = 1
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
}

// ownStyle is the length of the style sequence s starts with, when it is one style writes.
func ownStyle(s string) int {
	for _, code := range []string{sgrReset, sgrBold, sgrDim, sgrMark} {
		if seq := "\x1b[" + code + "m"; strings.HasPrefix(s, seq) {
			return len(seq)
		}
	}
	return 0
}

func (e *Env) writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Bold, Dim and Mark style text for a terminal; they return s unchanged when colour is off.
func (e *Env) Bold(s string) string { return e.style(sgrBold, s) }

// Dim is for secondary details such as ids and times.
func (e *Env) Dim(s string) string { return e.style(sgrDim, s) }

// Mark highlights a matched term.
func (e *Env) Mark(s string) string { return e.style(sgrMark, s) }

// The SGR codes style writes (and sgrReset after each); terminalSafe lets exactly these pass.
const (
	sgrBold  = "1"
	sgrDim   = "2"
	sgrMark  = "1;33"
	sgrReset = "0"
)

func (e *Env) style(code, s string) string {
	if !e.Color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[" + sgrReset + "m"
}

// maxInput bounds a file argument or standard input read whole (a description, a summary, a
// comment body, a tool's input): the size of the largest message cairn mcp takes.
const maxInput = 16 << 20

// readInput reads a file argument, or standard input for "-", through workspace's one rule for
// a file cairn reads: a regular file only (a FIFO or a device is refused before it is read, and
// its open cannot block), at most maxInput bytes, ended by ctx (Ctrl-C, SIGTERM).
func (e *Env) readInput(ctx context.Context, name string) ([]byte, error) {
	return e.readInputLimited(ctx, name, maxInput, "")
}

// readInputLimited is readInput for content with a size limit: a file over it is refused by its
// size before it is read, and at most limit+1 bytes are read (standard input may be endless,
// /dev/zero say), so more than limit is INVALID_INPUT before anything is written. what names the
// content in messages ("" for none).
func (e *Env) readInputLimited(ctx context.Context, name string, limit int64, what string) ([]byte, error) {
	if name == "-" {
		return workspace.ReadCapped(ctx, e.Stdin, limit, "standard input")
	}
	if what == "" {
		what = "file"
	}
	return workspace.ReadRegular(ctx, name, limit, what)
}

// runtimeSession is the session id the agent runtime gave the processes it starts: Claude Code's
// CLAUDE_CODE_SESSION_ID (hooks, MCP servers, its Bash tool), else Codex's CODEX_SESSION_ID (its
// shell tool; Codex gives an MCP server none, it names the session in each call instead).
func runtimeSession() string {
	if id := os.Getenv("CLAUDE_CODE_SESSION_ID"); id != "" {
		return id
	}
	return os.Getenv("CODEX_SESSION_ID")
}
