package claudecode

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/core/workspace"
)

// File is one transcript to read: a session's main transcript, or a subagent's
// (<project>/<session>/subagents/agent-<id>.jsonl).
type File struct {
	Path    string // absolute, cleaned
	Project string // the project folder's name, e.g. -home-me-src-app: one space per project
	Session string // the session id (the transcript's file name without .jsonl)
	Agent   string // for a subagent transcript: the agent id; "" for a session's own
	Size    int64
	ModNS   int64 // modification time, nanoseconds since 1970
}

// Walk calls add with each transcript file under paths: a .jsonl file given is itself (any
// other file is refused as not being what), a folder is walked for the files whose name keep
// accepts. A folder given through a symbolic link (~/.claude often is one) is walked where it
// points; links inside it are not followed. Both runtimes' importers find their files here.
func Walk(paths []string, keep func(name string) bool, what string, add func(path string, fi fs.FileInfo)) error {
	for _, arg := range paths {
		abs, err := filepath.Abs(arg)
		if err != nil {
			return fmt.Errorf("%s: %w", arg, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode().IsRegular():
			if !strings.HasSuffix(abs, ".jsonl") {
				return fmt.Errorf("%s is not %s", arg, what)
			}
			add(abs, fi)
		case fi.IsDir():
			if abs, err = filepath.EvalSymlinks(abs); err != nil {
				return err
			}
			err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() || !d.Type().IsRegular() || !keep(d.Name()) {
					return nil
				}
				fi, err := d.Info()
				if err != nil {
					return err
				}
				add(p, fi)
				return nil
			})
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s is neither a file nor a folder", arg)
		}
	}
	return nil
}

// Find lists the transcripts under paths: a .jsonl file is itself; a folder (a project folder such
// as ~/.claude/projects/<project>/, or ~/.claude/projects itself) is walked for *.jsonl files.
// Symbolic links inside folders are not followed; the result is sorted by path, each file once.
func Find(paths []string) ([]File, error) {
	seen := map[string]bool{}
	var out []File
	err := Walk(paths, func(name string) bool { return strings.HasSuffix(name, ".jsonl") },
		"a Claude Code transcript (want a .jsonl file or a folder such as ~/.claude/projects/<project>/)",
		func(p string, fi fs.FileInfo) {
			if !seen[p] {
				seen[p] = true
				out = append(out, classify(p, fi))
			}
		})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// classify names a transcript's project, session and agent from where it lies.
func classify(p string, fi fs.FileInfo) File {
	f := File{Path: p, Size: fi.Size(), ModNS: fi.ModTime().UnixNano()}
	dir := filepath.Dir(p)
	stem := strings.TrimSuffix(filepath.Base(p), ".jsonl")
	if filepath.Base(dir) == "subagents" {
		sessionDir := filepath.Dir(dir)
		f.Session = filepath.Base(sessionDir)
		f.Agent = strings.TrimPrefix(stem, "agent-")
		f.Project = filepath.Base(filepath.Dir(sessionDir))
		return f
	}
	f.Session = stem
	f.Project = filepath.Base(dir)
	return f
}

// AgentDescription is the description Claude Code wrote for a subagent next to its transcript
// (agent-<id>.meta.json, "description"), or "" when there is none.
func AgentDescription(transcript string) string {
	data, err := workspace.ReadSmall(strings.TrimSuffix(transcript, ".jsonl")+".meta.json", 1<<20, "")
	if err != nil || len(data) > 1<<20 {
		return ""
	}
	var meta struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(data, &meta) != nil {
		return ""
	}
	return firstLine(meta.Description)
}

// ConfigDir is where Claude Code keeps its state: $CLAUDE_CONFIG_DIR (which Claude Code itself
// honours), else ~/.claude; "" when neither can be told.
func ConfigDir() string { return workspace.RuntimeHome("CLAUDE_CONFIG_DIR", ".claude") }

// ProjectsDir is the folder of Claude Code's transcripts, one folder per project:
// <ConfigDir>/projects; "" when the configuration folder cannot be told.
func ProjectsDir() string {
	if d := ConfigDir(); d != "" {
		return filepath.Join(d, "projects")
	}
	return ""
}
