package spaces

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn/core/errs"
)

// ImportFormat is one kind of input `space import --from NAME` reads: the CLI's usage and
// dispatch read this table.
type ImportFormat struct {
	// Name is the --from value.
	Name string
	// Doc says what the input is, for the flag's usage.
	Doc string
	// Paths formats read files and folders themselves (runtime transcripts); the others read
	// one stream (a file or standard input).
	Paths bool
	// Needs says what one source of a Paths format is, for the message when none is given.
	Needs string
	// Optional says a Paths format reads a default source when none is given.
	Optional bool
	// Import reads the files and folders of a Paths format into the store and reports what
	// it read (a ClaudeReport, a CodexReport).
	Import func(st *Store, ctx context.Context, paths []string, progress Progress) (any, error)
	// Default is where an agent runtime keeps its sessions on this machine: what
	// `space import --all` reads for it (and an Optional format when given no path).
	Default func() ([]string, error)
}

// ImportFormats are the formats of space import, the default first.
var ImportFormats = []ImportFormat{
	{Name: "cairn", Doc: "JSON Lines of spaces, members, tasks, comments; docs/formats.md"},
	{Name: SourceClaudeCode, Doc: "transcripts: .jsonl files or folders such as ~/.claude/projects/<project>/", Paths: true,
		Needs:  "transcript (.jsonl) or folder such as ~/.claude/projects/<project>/",
		Import: reporting((*Store).ImportClaude), Default: defaultClaudePaths},
	{Name: SourceCodex, Doc: "rollouts: rollout-*.jsonl files or folders such as ~/.codex/sessions", Paths: true,
		Needs:  "rollout (rollout-*.jsonl) or folder such as ~/.codex/sessions",
		Import: reporting((*Store).ImportCodex), Default: defaultCodexPaths},
	{Name: SourceOpenCode, Doc: "sessions in OpenCode's database: ~/.local/share/opencode/opencode.db when no path is given", Paths: true, Optional: true,
		Needs:  "OpenCode database (opencode.db)",
		Import: reporting((*Store).ImportOpenCode), Default: defaultOpenCodePaths},
	{Name: SourceGemini, Doc: "session files: session-*.jsonl files or folders such as ~/.gemini/tmp (the default)", Paths: true, Optional: true,
		Needs:  "session file (session-*.jsonl) or folder such as ~/.gemini/tmp",
		Import: reporting((*Store).ImportGemini), Default: DefaultGeminiPaths},
}

// reporting is a runtime's import as ImportFormat.Import calls it, its report as any.
func reporting[R any](imp func(*Store, context.Context, []string, Progress) (R, error)) func(*Store, context.Context, []string, Progress) (any, error) {
	return func(st *Store, ctx context.Context, paths []string, progress Progress) (any, error) {
		return imp(st, ctx, paths, progress)
	}
}

// FormatUsage lists the formats with what each reads: "cairn (...) claude-code (...) or codex (...)".
func FormatUsage() string {
	parts := make([]string, len(ImportFormats))
	for i, f := range ImportFormats {
		parts[i] = f.Name + " (" + f.Doc + ")"
	}
	return strings.Join(parts[:len(parts)-1], " ") + " or " + parts[len(parts)-1]
}

// LookupImportFormat finds a format by name; an unknown one is INVALID_INPUT naming the others.
func LookupImportFormat(name string) (ImportFormat, error) {
	names := make([]string, len(ImportFormats))
	for i, f := range ImportFormats {
		if f.Name == name {
			return f, nil
		}
		names[i] = f.Name
	}
	return ImportFormat{}, errs.Invalidf("%s %q is not one of %s", errs.Field("from", errs.Name), name, strings.Join(names, ", "))
}
