package commands

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestNormalizeArgs(t *testing.T) {
	app := NewApp(newEnv(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
	cases := []struct{ in, want string }{
		{"cairn task list", "cairn task list"},
		// flags after positionals move before them
		{"cairn task create hello --description d", "cairn task create --description d hello"},
		// global flags after the command move to the front
		{"cairn task get 3 --json", "cairn --json task get 3"},
		{"cairn task get 3 -C /w --json", "cairn -C /w --json task get 3"},
		{"cairn task get 3 --workspace=/w", "cairn --workspace=/w task get 3"},
		// global flags before the family stay
		{"cairn --json -C /w task list --status pending", "cairn --json -C /w task list --status pending"},
		// "--" ends flags: later words are positionals, re-guarded when they look like flags
		{"cairn task create -- --weird-subject --json", "cairn task create -- --weird-subject --json"},
		{"cairn task create -- plain", "cairn task create plain"},
		// a value that looks like a command name is still the flag's value
		{"cairn task update 1 --subject list", "cairn task update --subject list 1"},
		// an unknown flag stays with the command so urfave reports it
		{"cairn task list --bogus", "cairn task list --bogus"},
		// a last flag that needs a value and has none stays last, so the parser says so, instead
		// of taking a positional (or, for a global flag, the command name) as its value
		{"cairn task update 1 -s", "cairn task update -s"},
		{"cairn task create x --description-file", "cairn task create --description-file"},
		{"cairn task list --json -C", "cairn --json -C"},
		{"cairn task get 3 --workspace", "cairn --workspace"},
		// the completion flag stays last
		{"cairn task --generate-bash-completion", "cairn task --generate-bash-completion"},
		{"cairn", "cairn"},
		// help: "help CMD..." is "CMD... --help", and --help drops the words after the command
		{"cairn help task", "cairn task --help"},
		{"cairn help task create", "cairn task create --help"},
		{"cairn help", "cairn --help"},
		{"cairn task create x --help", "cairn task create --help"},
		{"cairn task get 1 -h", "cairn task get -h"},
		// completion: a last --generate-bash-completion is never a flag's value or an argument,
		// and no "--" stays before it (urfave/cli would run the command then)
		{"cairn task create fix -d --generate-bash-completion", "cairn task create fix --generate-bash-completion"},
		{"cairn task create -- --generate-bash-completion", "cairn task create --generate-bash-completion"},
		{"cairn task create -- x --generate-bash-completion", "cairn task create x --generate-bash-completion"},
		{"cairn memory read decision --generate-bash-completion", "cairn memory read decision --generate-bash-completion"},
	}
	for _, c := range cases {
		got := normalizeArgs(app, strings.Fields(c.in))
		if !reflect.DeepEqual(got, strings.Fields(c.want)) {
			t.Errorf("normalizeArgs(%q)\n got %q\nwant %q", c.in, strings.Join(got, " "), c.want)
		}
	}
}

func TestJSONRequested(t *testing.T) {
	app := NewApp(newEnv(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
	for in, want := range map[string]bool{
		"cairn --json -C":             true,
		"cairn -C /w --json task":     true,
		"cairn --json=true task":      true,
		"cairn --json=false task":     false,
		"cairn --json=1 task":         true,
		"cairn --json=nope task":      false,
		"cairn ---json task":          false,
		"cairn -C --json task list":   false, // --json is -C's value there
		"cairn task list --json":      false, // not normalized: after the command it is the command's
		"cairn --wait 1s task --json": false,
	} {
		if got := jsonRequested(app, strings.Fields(in)); got != want {
			t.Errorf("jsonRequested(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzNormalizeArgs: any command line normalizes without a panic, and normalizing twice changes
// nothing more (the output is already in the order urfave/cli reads).
func FuzzNormalizeArgs(f *testing.F) {
	app := NewApp(newEnv(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
	f.Add("task update 1 -s")
	f.Add("task create -- --weird --json")
	f.Add("--json -C /w task list --status pending,deleted")
	f.Add("space search 認証 --around comment:1 --context=2 -")
	f.Add("memory edit decision x --old a --new b --all --generate-bash-completion")
	f.Fuzz(func(t *testing.T, line string) {
		args := append([]string{"cairn"}, strings.Fields(line)...)
		once := normalizeArgs(app, args)
		if once[0] != "cairn" {
			t.Fatalf("program name lost: %q", once)
		}
		if twice := normalizeArgs(app, once); !reflect.DeepEqual(once, twice) {
			t.Fatalf("not idempotent:\n in   %q\n once %q\n twice %q", args, once, twice)
		}
		jsonRequested(app, once)
	})
}

func TestParseArgsCompletion(t *testing.T) {
	app := NewApp(newEnv(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
	for in, want := range map[string]parsedArgs{
		"cairn task update 1 -s --generate-bash-completion":        {complete: true, valueOf: "s"},
		"cairn task update 1 --subject --generate-bash-completion": {complete: true, valueOf: "subject"},
		"cairn --session-format --generate-bash-completion":        {complete: true, valueOf: "session-format"},
		"cairn task update --generate-bash-completion":             {complete: true},
		"cairn task update 1 -s":                                   {},
		"cairn task create --generate-bash-completion x":           {},
	} {
		got := parseArgs(app, strings.Fields(in))
		if got.complete != want.complete || got.valueOf != want.valueOf {
			t.Errorf("parseArgs(%q): complete %v valueOf %q, want %v %q", in, got.complete, got.valueOf, want.complete, want.valueOf)
		}
	}
}
