// Package tools is the registry of agent tools: each tool's exact name, a description written for
// a model, the JSON Schema of its input, and a handler calling the same core function as the CLI.
// `cairn tools`, `cairn mcp` and `cairn serve` all answer from it.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/strictjson"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Context is who calls a tool and from where (SPEC §2.4); the faces fill it from flags or env.
type Context struct {
	Workspace     *workspace.Workspace
	Session       string
	SessionFormat string
	User          string
	Task          string
	Subtask       bool
	Card          string
	// ClaudeSession is the Claude Code session the caller runs in (CLAUDE_CODE_SESSION_ID), left
	// out of a search of the local account's Claude Code spaces.
	ClaudeSession string
	// Board returns the loaded board; a daemon sets it to its in-memory index, and nil means
	// board.Load (the snapshot) on each call.
	Board func() (*board.Index, error)
}

// Tool is one agent tool.
type Tool struct {
	Name        string
	Description string
	// ReadOnly tools never change the workspace; MCP clients may call them without asking.
	ReadOnly bool
	Schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	run      func(ctx context.Context, c Context, raw json.RawMessage) (any, error)
}

// define builds a tool whose input schema is inferred from In, so schema and decoding never drift.
func define[In any](name, description string, readOnly bool, fix func(*jsonschema.Schema), fn func(context.Context, Context, In) (any, error)) *Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema: %v", name, err)) // a programming error, caught by tests
	}
	if schema.Properties == nil {
		schema.Properties = map[string]*jsonschema.Schema{}
	}
	if fix != nil {
		fix(schema)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: resolve schema: %v", name, err))
	}
	return &Tool{
		Name: name, Description: description, ReadOnly: readOnly, Schema: schema, resolved: resolved,
		run: func(ctx context.Context, c Context, raw json.RawMessage) (any, error) {
			var in In
			if err := strictjson.Decode(raw, &in); err != nil {
				return nil, errs.Invalidf("%s input: %v", name, err)
			}
			return fn(ctx, c, in)
		},
	}
}

// Call validates input against the tool's schema and runs it. Empty input means {}.
func (t *Tool) Call(ctx context.Context, c Context, input json.RawMessage) (any, error) {
	input = bytes.TrimSpace(input)
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(input, &instance); err != nil {
		return nil, errs.Invalidf("%s input is not valid JSON: %v", t.Name, err)
	}
	obj, ok := instance.(map[string]any)
	if !ok {
		return nil, errs.Invalidf("%s input must be a JSON object", t.Name)
	}
	if unknown := t.unknownFields(obj); len(unknown) > 0 {
		return nil, errs.Invalidf("%s input has unknown field %s; valid fields: %s", t.Name, strings.Join(unknown, ", "), strings.Join(t.fieldNames(), ", "))
	}
	if err := t.enumValues(obj); err != nil {
		return nil, err
	}
	if err := t.resolved.Validate(instance); err != nil {
		return nil, errs.Invalidf("%s input: %v", t.Name, err)
	}
	return t.run(ctx, c, input)
}

// enumValues names a string outside a property's allowed values the way a model can act on
// (status "done" is not one of pending, ...), before the schema validator's terser message.
func (t *Tool) enumValues(obj map[string]any) error {
	for _, name := range t.fieldNames() {
		p := t.Schema.Properties[name]
		v, ok := obj[name].(string)
		if p == nil || len(p.Enum) == 0 || !ok || slices.Contains(p.Enum, any(v)) {
			continue
		}
		var allowed []string
		for _, e := range p.Enum {
			if s, ok := e.(string); ok {
				allowed = append(allowed, s)
			}
		}
		return errs.Invalidf("%s input: %s %q is not one of %s", t.Name, name, v, strings.Join(allowed, ", "))
	}
	return nil
}

func (t *Tool) fieldNames() []string {
	names := make([]string, 0, len(t.Schema.Properties))
	for n := range t.Schema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []string{"(none)"}
	}
	return names
}

func (t *Tool) unknownFields(obj map[string]any) []string {
	var out []string
	for k := range obj {
		if _, ok := t.Schema.Properties[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Registry holds every tool by name.
type Registry struct {
	tools  []*Tool
	byName map[string]*Tool
}

// New registers every cairn tool.
func New() *Registry {
	r := &Registry{byName: map[string]*Tool{}}
	for _, t := range append(append(append(taskTools(), memoryTools()...), spaceTools()...), boardTools()...) {
		if _, dup := r.byName[t.Name]; dup {
			panic("duplicate tool " + t.Name)
		}
		r.tools = append(r.tools, t)
		r.byName[t.Name] = t
	}
	return r
}

// List returns the tools in a stable order (families as in the spec, then definition order).
func (r *Registry) List() []*Tool { return r.tools }

// Get finds a tool by its exact name; an unknown name is INVALID_INPUT listing the valid names.
func (r *Registry) Get(name string) (*Tool, error) {
	t, ok := r.byName[name]
	if !ok {
		names := make([]string, len(r.tools))
		for i, t := range r.tools {
			names[i] = t.Name
		}
		return nil, errs.Invalidf("no tool named %q; tools: %s", name, strings.Join(names, ", "))
	}
	return t, nil
}

// Definition is a tool as agent runtimes register it (Anthropic's name/description/input_schema).
type Definition struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	ReadOnly    bool               `json:"read_only"`
	InputSchema *jsonschema.Schema `json:"input_schema"`
}

// Definition describes t for `cairn tools list --json`.
func (t *Tool) Definition() Definition {
	return Definition{Name: t.Name, Description: t.Description, ReadOnly: t.ReadOnly, InputSchema: t.Schema}
}

// enum restricts a string property to the given values. A property that may be null (an
// optional pointer field) keeps null among them: null means "not given", as for any other field.
func enum(prop string, values ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		if p == nil {
			panic("enum on missing property " + prop)
		}
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
		if slices.Contains(p.Types, "null") || p.Type == "null" {
			p.Enum = append(p.Enum, nil)
		}
	}
}

// bounds sets an integer property's range.
func bounds(prop string, min, max float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		if p == nil {
			panic("bounds on missing property " + prop)
		}
		p.Minimum, p.Maximum = &min, &max
	}
}

// all combines schema adjustments.
func all(fixes ...func(*jsonschema.Schema)) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, f := range fixes {
			f(s)
		}
	}
}
