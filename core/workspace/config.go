package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/cairn-dev/cairn/core/errs"
)

// Config is the manifest cairn.toml (every key is shown by cairn init).
type Config struct {
	Memory  MemoryConfig  `toml:"memory"`
	Board   BoardConfig   `toml:"board"`
	Session SessionConfig `toml:"session"`
	Space   SpaceConfig   `toml:"space"`
	Serve   ServeConfig   `toml:"serve"`
}

// SpaceConfig is how this workspace shares its spaces with a team server (docs/team.md).
type SpaceConfig struct {
	// Server is the team server's URL (https://host:port, or http:// on loopback); when set,
	// space search, tools call SearchWorkspaceTasks and cairn mcp ask it instead of spaces.db.
	Server string `toml:"server"`
	// Team is the team space searched and pushed to; "" lets the server pick the member's only one.
	Team string `toml:"team"`
	// Exclude are project paths and session ids never imported and never pushed.
	Exclude []string `toml:"exclude"`
}

// ServeConfig configures cairn serve.
type ServeConfig struct {
	// Store is the team store: "sqlite" (the default: spaces.db and team.db of the workspace)
	// or a postgres:// URL.
	Store string `toml:"store"`
}

// MemoryConfig tunes memory and knowledge search.
type MemoryConfig struct {
	SearchHitLimit     int `toml:"search_hit_limit"`
	SearchExcerptLines int `toml:"search_excerpt_lines"`
}

// BoardConfig holds the board's Settings switches.
type BoardConfig struct {
	Ideas     bool `toml:"ideas"`
	Artifacts bool `toml:"artifacts"`
	Memory    bool `toml:"memory"`
}

// SessionConfig names the default session log.
type SessionConfig struct {
	Log string `toml:"log"`
}

// DefaultConfig is what an empty manifest means.
func DefaultConfig() Config {
	return Config{
		Memory:  MemoryConfig{SearchHitLimit: 20, SearchExcerptLines: 3},
		Board:   BoardConfig{Ideas: true, Artifacts: true, Memory: true},
		Session: SessionConfig{Log: "sessions/default.jsonl"},
	}
}

// The bounds of a memory or knowledge search, in cairn.toml and in each call.
const (
	// MaxSearchHits is the most hits one search returns.
	MaxSearchHits = 500
	// MaxExcerptLines is the most lines of excerpt before and after a match.
	MaxExcerptLines = 20
)

// DefaultManifest is written by `cairn init`: every key, commented out, at its default.
const DefaultManifest = `# cairn workspace manifest. Every key is shown at its default; uncomment to change.

[memory]
# search_hit_limit = 20       # 1..500 hits per memory/knowledge search
# search_excerpt_lines = 3    # 0..20 lines before and after a match

[board]
# ideas = true                # ideas are searchable
# artifacts = true            # deliverables are searchable
# memory = true               # global switch for project memory

[session]
# log = "sessions/default.jsonl"

[space]
# server = ""                 # a team server (https://host:port): search and push go there
# team = ""                   # the team space to search and push to (default: your only one)
# exclude = []                # project paths and session ids never imported nor pushed

[serve]
# store = "sqlite"            # the team store of cairn serve: sqlite, or postgres://...
`

// Range bounds an integer key; used for validation and its message.
type intRange struct {
	key      string
	value    *int
	min, max int
}

// MaxManifestSize bounds cairn.toml: a manifest is a few hundred bytes; a repository may hold
// anything, so a bigger file is refused before it is parsed.
const MaxManifestSize = 1 << 20

// maxManifestDepth bounds how deep arrays and inline tables nest and how many parts a dotted key
// has. Every valid key has two parts (section.key); the parser's time and memory grow with depth.
const maxManifestDepth = 16

// validKeys is the list every unknown-key message shows.
const validKeys = "memory.search_hit_limit, memory.search_excerpt_lines, board.ideas, board.artifacts, board.memory, session.log, space.server, space.team, space.exclude, serve.store"

// LoadConfig reads and validates a manifest; unknown keys and out-of-range values are INVALID_INPUT.
// It is a regular file of at most MaxManifestSize bytes (opened without blocking, so a FIFO or a
// device cannot hang or exhaust it), nested at most maxManifestDepth deep.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
	data, err := readManifest(path)
	if err != nil {
		return cfg, err
	}
	if line, what := manifestNesting(data); what != "" {
		return cfg, errs.Invalidf("%s: line %d: %s nested deeper than %d levels; a cairn manifest needs two (section.key)", path, line, what, maxManifestDepth)
	}
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return cfg, errs.Invalidf("%s: line %d: %s", path, perr.Position.Line, clip(perr.Message))
		}
		return cfg, errs.Invalidf("%s: %s", path, clip(err.Error()))
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		// The first only: a file of thousands of unknown keys must not make a message of them all.
		return cfg, errs.Invalidf("%s: unknown key %s (valid: %s)", path, clip(undec[0].String()), validKeys)
	}
	for _, r := range []intRange{
		{"memory.search_hit_limit", &cfg.Memory.SearchHitLimit, 1, MaxSearchHits},
		{"memory.search_excerpt_lines", &cfg.Memory.SearchExcerptLines, 0, MaxExcerptLines},
	} {
		if *r.value < r.min || *r.value > r.max {
			return cfg, errs.Invalidf("%s: %s = %d is out of range %d..%d", path, r.key, *r.value, r.min, r.max)
		}
	}
	log := cfg.Session.Log
	if strings.TrimSpace(log) == "" {
		return cfg, errs.Invalidf("%s: session.log must not be empty", path)
	}
	if strings.ContainsRune(log, 0) {
		return cfg, errs.Invalidf("%s: session.log contains a NUL byte", path)
	}
	if !filepath.IsLocal(filepath.FromSlash(log)) {
		return cfg, errs.Invalidf("%s: session.log = %q leaves the workspace; a manifest may only name a path inside it, relative and without '..' (give a log elsewhere%s)", path, clip(log), errs.Field("session", errs.With))
	}
	return cfg, nil
}

// readManifest reads a manifest of at most MaxManifestSize bytes. O_NONBLOCK keeps the open of
// a FIFO from waiting for a writer; fstat then refuses anything that is not a regular file.
func readManifest(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "read manifest")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "read manifest")
	}
	if !st.Mode().IsRegular() {
		return nil, errs.Invalidf("%s is not a regular file (mode %s); the manifest must be a plain file — replace it with one ('cairn init' writes the default)", path, st.Mode())
	}
	if st.Size() > MaxManifestSize {
		return nil, errs.Invalidf("%s is %d bytes, over the %d-byte (1 MiB) limit for a manifest", path, st.Size(), MaxManifestSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxManifestSize+1))
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, err, "read manifest")
	}
	if len(data) > MaxManifestSize {
		return nil, errs.Invalidf("%s grew past the %d-byte (1 MiB) limit for a manifest while it was read", path, MaxManifestSize)
	}
	return data, nil
}

// clip shortens text quoted from a manifest, which may be anything, for a one-line message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
}

// manifestNesting scans TOML text for arrays and inline tables nested deeper than
// maxManifestDepth, and for keys of more than maxManifestDepth dotted parts, before the parser
// sees them. It follows strings and comments only as far as needed to tell structure from text;
// anything it misreads is still checked by the parser. It returns the line and what is too deep.
func manifestNesting(data []byte) (int, string) {
	line := 1
	var stack []byte // '[' (array) or '{' (inline table)
	key := true      // reading a key (line start, inside a table header, after ',' in an inline table)
	header := false  // inside [table] or [[table]]
	dots := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n':
			line++
			if len(stack) == 0 {
				key, header, dots = true, false, 0
			}
		case c == '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			quote := []byte{c}
			if i+2 < len(data) && data[i+1] == c && data[i+2] == c {
				quote = []byte{c, c, c}
			}
			i += len(quote)
			for i < len(data) {
				if c == '"' && data[i] == '\\' {
					i += 2
					continue
				}
				if data[i] == '\n' {
					if len(quote) == 1 {
						i-- // an unterminated string: the parser will say so
						break
					}
					line++
				}
				if bytes.HasPrefix(data[i:], quote) {
					i += len(quote) - 1
					break
				}
				i++
			}
		case c == '.' && (key || header):
			if dots++; dots >= maxManifestDepth {
				return line, "a dotted key"
			}
		case c == '=' && !header:
			key, dots = false, 0
		case c == ',' && len(stack) > 0 && stack[len(stack)-1] == '{':
			key, dots = true, 0
		case c == '[' && key && len(stack) == 0:
			header = true
		case c == ']' && header:
		case c == '[' || c == '{':
			if stack = append(stack, c); len(stack) > maxManifestDepth {
				return line, "arrays or inline tables"
			}
			key, dots = c == '{', 0
		case c == ']' || c == '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			key = false
		}
	}
	return 0, ""
}

// String renders the effective configuration for diagnostics.
func (c Config) String() string {
	return fmt.Sprintf("memory.search_hit_limit=%d memory.search_excerpt_lines=%d board.ideas=%t board.artifacts=%t board.memory=%t session.log=%q",
		c.Memory.SearchHitLimit, c.Memory.SearchExcerptLines, c.Board.Ideas, c.Board.Artifacts, c.Board.Memory, c.Session.Log)
}
