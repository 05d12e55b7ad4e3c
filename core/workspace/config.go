package workspace

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/cairn-dev/cairn/core/errs"
)

// Config is the manifest cairn.toml (SPEC §2.3).
type Config struct {
	Memory  MemoryConfig  `toml:"memory"`
	Board   BoardConfig   `toml:"board"`
	Session SessionConfig `toml:"session"`
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
`

// Range bounds an integer key; used for validation and its message.
type intRange struct {
	key      string
	value    *int
	min, max int
}

// LoadConfig reads and validates a manifest; unknown keys and out-of-range values are INVALID_INPUT.
func LoadConfig(path string) (Config, error) {
	cfg := DefaultConfig()
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, errs.Wrap(errs.Invalid, err, "read manifest")
	}
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return cfg, errs.Invalidf("%s: line %d: %s", path, perr.Position.Line, perr.Message)
		}
		return cfg, errs.Invalidf("%s: %v", path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		keys := make([]string, len(undec))
		for i, k := range undec {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return cfg, errs.Invalidf("%s: unknown key %s (valid: memory.search_hit_limit, memory.search_excerpt_lines, board.ideas, board.artifacts, board.memory, session.log)", path, strings.Join(keys, ", "))
	}
	for _, r := range []intRange{
		{"memory.search_hit_limit", &cfg.Memory.SearchHitLimit, 1, 500},
		{"memory.search_excerpt_lines", &cfg.Memory.SearchExcerptLines, 0, 20},
	} {
		if *r.value < r.min || *r.value > r.max {
			return cfg, errs.Invalidf("%s: %s = %d is out of range %d..%d", path, r.key, *r.value, r.min, r.max)
		}
	}
	if strings.TrimSpace(cfg.Session.Log) == "" {
		return cfg, errs.Invalidf("%s: session.log must not be empty", path)
	}
	if strings.ContainsRune(cfg.Session.Log, 0) {
		return cfg, errs.Invalidf("%s: session.log contains a NUL byte", path)
	}
	return cfg, nil
}

// String renders the effective configuration for diagnostics.
func (c Config) String() string {
	return fmt.Sprintf("memory.search_hit_limit=%d memory.search_excerpt_lines=%d board.ideas=%t board.artifacts=%t board.memory=%t session.log=%q",
		c.Memory.SearchHitLimit, c.Memory.SearchExcerptLines, c.Board.Ideas, c.Board.Artifacts, c.Board.Memory, c.Session.Log)
}
