package spaces

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/core/claudecode"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/opencode"
	"github.com/cairn-dev/cairn/core/workspace"
)

// CodexHome is where Codex keeps its state: $CODEX_HOME (which Codex itself honours), else
// ~/.codex; "" when neither can be told.
func CodexHome() string { return workspace.RuntimeHome("CODEX_HOME", ".codex") }

// defaultClaudePaths, defaultCodexPaths and defaultOpenCodePaths are where each runtime keeps its
// sessions on this machine (the rows of ImportFormats name them as Default).
func defaultClaudePaths() ([]string, error) { return nonEmpty(claudecode.ProjectsDir()), nil }
func defaultCodexPaths() ([]string, error) {
	if h := CodexHome(); h != "" {
		return []string{filepath.Join(h, "sessions")}, nil
	}
	return nil, nil
}
func defaultOpenCodePaths() ([]string, error) { return nonEmpty(opencode.DefaultDB()), nil }

func nonEmpty(p string) []string {
	if p == "" {
		return nil
	}
	return []string{p}
}

// RuntimeImport is what `space import --all` did with one runtime: where it looked, whether its
// sessions are there, and the report of their import (a ClaudeReport, CodexReport,
// OpenCodeReport or GeminiReport), or why it failed.
type RuntimeImport struct {
	Runtime string   `json:"runtime"`
	Paths   []string `json:"paths"`
	Found   bool     `json:"found"`
	Report  any      `json:"report,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// AllReport is the answer of ImportAll: one entry per runtime, in the order of ImportFormats.
type AllReport struct {
	Runtimes []RuntimeImport `json:"runtimes"`
}

// ImportAll imports the past sessions of every agent runtime found on this machine, each from
// its default location (the Default of its row of ImportFormats: ~/.claude/projects or
// $CLAUDE_CONFIG_DIR/projects, $CODEX_HOME/sessions or ~/.codex/sessions, OpenCode's
// opencode.db, ~/.gemini/tmp), incrementally as each importer is: a file or database unchanged
// since the last import is not opened. A runtime whose location does not exist is reported as
// not found; one whose import fails is reported with its error and the others are still
// imported (the answer's error then names the failed ones). progress, when not nil, gives the
// progress callback of one runtime's import and what ends it.
func (s *Store) ImportAll(ctx context.Context, progress func(runtime string) (Progress, func())) (AllReport, error) {
	rep := AllReport{Runtimes: []RuntimeImport{}}
	var failed []error
	// claude_files read once for the four importers: each looks up and writes only its own files
	states, err := s.claudeStates(ctx)
	if err != nil {
		return rep, err
	}
	s.sharedStates = states
	defer func() { s.sharedStates = nil }()
	for _, f := range ImportFormats {
		if f.Default == nil {
			continue
		}
		if err := errs.Stopped(ctx, "space import --all"); err != nil {
			return rep, err
		}
		paths, err := f.Default()
		ri := RuntimeImport{Runtime: f.Name, Paths: paths}
		if ri.Paths == nil {
			ri.Paths = []string{}
		}
		if err != nil {
			ri.Error = err.Error()
			rep.Runtimes = append(rep.Runtimes, ri)
			continue
		}
		var there []string
		for _, p := range paths {
			if _, err := os.Stat(p); err == nil {
				there = append(there, p)
			}
		}
		if len(there) == 0 {
			rep.Runtimes = append(rep.Runtimes, ri)
			continue
		}
		ri.Found = true
		var pr Progress
		finish := func() {}
		if progress != nil {
			pr, finish = progress(f.Name)
		}
		r, err := f.Import(s, ctx, there, pr)
		finish()
		if err != nil {
			if stopped := errs.Stopped(ctx, "space import --all"); stopped != nil {
				return rep, stopped
			}
			ri.Error = err.Error()
			failed = append(failed, errs.Wrap(errs.CodeOf(err), err, "%s", f.Name))
		} else {
			ri.Report = r
		}
		rep.Runtimes = append(rep.Runtimes, ri)
	}
	if len(failed) == 1 {
		return rep, failed[0]
	}
	if len(failed) > 1 {
		return rep, errs.Wrap(errs.CodeOf(failed[0]), errors.Join(failed...), "space import --all")
	}
	return rep, nil
}

// RuntimeLocations names where ImportAll looks, for help.
const RuntimeLocations = "~/.claude/projects or $CLAUDE_CONFIG_DIR/projects, ~/.codex/sessions or $CODEX_HOME/sessions, " +
	"$XDG_DATA_HOME/opencode/opencode.db (~/.local/share/opencode/opencode.db), ~/.gemini/tmp"
