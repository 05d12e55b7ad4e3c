// Package tools is the registry of agent tools: each tool's exact name, a description written for
// a model, the JSON Schema of its input, and a handler calling the same core function as the CLI.
// `cairn tools`, `cairn mcp` and `cairn serve` all answer from it.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/formats"
	"github.com/cairn-dev/cairn/core/jsonscan"
	"github.com/cairn-dev/cairn/core/strictjson"
	"github.com/cairn-dev/cairn/core/workspace"
)

// Context is who calls a tool and from where; the faces fill the caller from flags or env.
type Context struct {
	Workspace *workspace.Workspace
	workspace.Caller
	// Stores is where every handler reaches the board, spaces.db and session logs: Keep in a
	// long-lived face (`cairn mcp`, `cairn serve`); nil opens them on each call (OpenEach).
	Stores Stores
	// SpaceServer, when set, answers SearchWorkspaceTasks ([space] server of cairn.toml).
	SpaceServer SpaceServer
	// Queue, when set, is where a search that is pure CPU waits for a processor (a daemon runs
	// as many at once as it has, and queues the rest in arrival order); release ends its turn.
	Queue func(ctx context.Context) (release func(), err error)
}

// Tool is one agent tool.
type Tool struct {
	Name        string
	Command     string // the CLI command of the same operation ("task create")
	Description string
	// ReadOnly tools never change the workspace; MCP clients may call them without asking.
	ReadOnly bool
	// Parallel tools split a large scan over the cores (memory and knowledge search): a server
	// that runs on one thread between calls gives them every core.
	Parallel bool
	Schema   *jsonschema.Schema
	run      func(ctx context.Context, c Context, raw json.RawMessage) (any, error)
	// input and output are the types of the tool's input and answer (Operation.Input, Output).
	input, output reflect.Type
	// prepare infers Schema (New does, Commands does not).
	prepare func()
}

// parallel marks t as splitting its work over the cores (Tool.Parallel).
func parallel(t *Tool) *Tool {
	t.Parallel = true
	return t
}

// define builds a tool whose input schema is inferred from In, so schema and decoding never drift.
// The schema is inferred when the registry is built for calls (New), not for the command
// line's help and flags (Commands): about 2 ms that every start of cairn would pay.
func define[In, Out any](name, command, description string, readOnly bool, fix func(*jsonschema.Schema), fn func(context.Context, Context, In) (Out, error)) *Tool {
	t := &Tool{
		Name: name, Command: command, Description: description, ReadOnly: readOnly,
		input: typeOf[In](), output: typeOf[Out](),
		run: func(ctx context.Context, c Context, raw json.RawMessage) (any, error) {
			var in In
			if err := strictjson.Decode(raw, &in); err != nil {
				return nil, errs.Invalidf("%s input: %s", name, DecodeProblem(err))
			}
			out, err := fn(ctx, c, in)
			return out, forModel(err)
		},
	}
	t.prepare = func() {
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
		if _, err := schema.Resolve(nil); err != nil {
			panic(fmt.Sprintf("tool %s: resolve schema: %v", name, err))
		}
		if err := checkable(schema); err != nil {
			panic(fmt.Sprintf("tool %s: %v", name, err))
		}
		for pname, p := range schema.Properties {
			if strings.Contains(p.Description, "{") {
				panic(fmt.Sprintf("tool %s: property %s: a placeholder is left in %q", name, pname, p.Description))
			}
		}
		t.Schema = schema
	}
	return t
}

// Call validates input against the tool's schema and runs it. Empty input means {}. Every
// keyword of the schema is checked here by hand (checkable holds each schema to the keywords
// check knows, when the tool is defined), so no general JSON Schema validation runs per call.
func (t *Tool) Call(ctx context.Context, c Context, input json.RawMessage) (any, error) {
	input = bytes.TrimSpace(input)
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if !json.Valid(input) { // a scan: the one decode is the handler's, into its input type
		var v any
		return nil, errs.Invalidf("%s input is not valid JSON: %s", t.Name, syntaxProblemIn(json.Unmarshal(input, &v), input))
	}
	if number := hugeNumber(input); number != "" {
		return nil, errs.Invalidf("%s input: number %s is too large", t.Name, number)
	}
	if input[0] != '{' {
		return nil, errs.Invalidf("%s input must be a JSON object, not %s", t.Name, JSONKind(input))
	}
	fields := objectMembers(input)
	if unknown := t.unknownFields(fields); len(unknown) > 0 {
		return nil, errs.Invalidf("%s input has unknown field %s; valid fields: %s", t.Name, strings.Join(unknown, ", "), strings.Join(t.fieldNames(), ", "))
	}
	if problem := t.check(fields); problem != "" {
		return nil, errs.Invalidf("%s input: %s", t.Name, problem)
	}
	return t.run(ctx, c, input)
}

// objectMembers maps each member of a valid JSON object to its value's text, without decoding
// the values (a later duplicate key wins, as in encoding/json).
func objectMembers(obj []byte) map[string]json.RawMessage {
	fields := map[string]json.RawMessage{}
	jsonscan.Object(obj, func(key, rest []byte) int {
		n := jsonscan.ValueEnd(rest, 0)
		name := string(key)
		if bytes.IndexByte(key, '\\') >= 0 { // a name written with escapes (\u0073 for s)
			json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name)
		}
		fields[name] = json.RawMessage(rest[:n])
		return n
	})
	return fields
}

// hugeNumber is the first number of valid JSON text past float64's range, as encoding/json
// refuses it, or "".
func hugeNumber(b []byte) string {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			i = jsonscan.StringEnd(b, i) - 1
		case c == '-' || c >= '0' && c <= '9':
			end := jsonscan.ValueEnd(b, i)
			if _, err := strconv.ParseFloat(string(b[i:end]), 64); err != nil {
				return string(b[i:end])
			}
			i = end - 1
		}
	}
	return ""
}

// checkable fails for a schema using a keyword Call does not check: the schema is an object of
// properties (additionalProperties false, required), each property limited by type, enum,
// minimum, maximum and items, and the items of an array by type and enum.
func checkable(s *jsonschema.Schema) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if ap, ok := top["additionalProperties"]; !ok || string(ap) != "false" {
		return fmt.Errorf("schema: unknown fields must be refused (additionalProperties false)")
	}
	if err := onlyKeywords("the schema", top, "type", "properties", "required", "additionalProperties"); err != nil {
		return err
	}
	var props map[string]map[string]json.RawMessage
	json.Unmarshal(top["properties"], &props)
	for name, p := range props {
		if err := onlyKeywords("property "+name, p, "type", "description", "enum", "minimum", "maximum", "items"); err != nil {
			return err
		}
		if raw, ok := p["items"]; ok {
			var items map[string]json.RawMessage
			if json.Unmarshal(raw, &items) != nil {
				return fmt.Errorf("schema: property %s: items is not one schema", name)
			}
			if err := onlyKeywords("the items of "+name, items, "type", "description", "enum"); err != nil {
				return err
			}
		}
	}
	return nil
}

// onlyKeywords fails for a keyword of schema not among allowed.
func onlyKeywords(what string, schema map[string]json.RawMessage, allowed ...string) error {
	for k := range schema {
		if !slices.Contains(allowed, k) {
			return fmt.Errorf("schema: %s uses %q, which tool input checking does not know", what, k)
		}
	}
	return nil
}

// check says what is wrong with the input's fields, the way a model can act on: the field,
// what was given and what is valid ("limit: 21 is more than the maximum 20", "status: null
// given, a string is needed"); "" when every field fits. A property that may be null (an
// optional pointer field) takes null as "not given".
func (t *Tool) check(obj map[string]json.RawMessage) string {
	for _, name := range t.Schema.Required {
		if _, ok := obj[name]; !ok {
			return fmt.Sprintf("%s: nothing given, %s is needed", name, needed(t.Schema.Properties[name]))
		}
	}
	for _, name := range t.fieldNames() {
		raw, ok := obj[name]
		if p := t.Schema.Properties[name]; ok && p != nil {
			if problem := checkValue(name, p, raw); problem != "" {
				return problem
			}
		}
	}
	return ""
}

// checkValue checks one value against the keywords the tool schemas use: type, enum,
// minimum, maximum and items.
func checkValue(name string, p *jsonschema.Schema, raw json.RawMessage) string {
	kind := valueType(raw)
	types := p.Types
	if p.Type != "" {
		types = []string{p.Type}
	}
	if kind == "null" && slices.Contains(types, "null") {
		return ""
	}
	if !slices.Contains(types, kind) && !(kind == "integer" && slices.Contains(types, "number")) {
		return fmt.Sprintf("%s: %s given, %s is needed", name, shown(raw), needed(p))
	}
	if len(p.Enum) > 0 && kind == "string" {
		var v string
		json.Unmarshal(raw, &v)
		var allowed []string
		for _, e := range p.Enum {
			if s, ok := e.(string); ok {
				if s == v {
					return ""
				}
				allowed = append(allowed, s)
			}
		}
		return fmt.Sprintf("%s: %s is not one of %s", name, shown(raw), strings.Join(allowed, ", "))
	}
	if kind == "integer" || kind == "number" {
		v, _ := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
		if p.Minimum != nil && v < *p.Minimum {
			return fmt.Sprintf("%s: %s is less than the minimum %s", name, shown(raw), number(*p.Minimum))
		}
		if p.Maximum != nil && v > *p.Maximum {
			return fmt.Sprintf("%s: %s is more than the maximum %s", name, shown(raw), number(*p.Maximum))
		}
	}
	if kind == "array" && p.Items != nil {
		var items []json.RawMessage
		json.Unmarshal(raw, &items)
		for i, item := range items {
			itemName := fmt.Sprintf("%s[%d]", name, i)
			if len(p.Items.Enum) > 0 {
				itemName = name // "sources: "x" is not one of ..." reads better than an index
			}
			if problem := checkValue(itemName, p.Items, item); problem != "" {
				return problem
			}
		}
	}
	return ""
}

// valueType is the JSON Schema type of a valid JSON value; a number is "integer" only when it
// is written as one (1.0 does not decode into a Go int).
func valueType(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch k := JSONKind(raw); k {
	case "an object":
		return "object"
	case "an array":
		return "array"
	case "a string":
		return "string"
	case "a boolean":
		return "boolean"
	case "null":
		return "null"
	}
	if bytes.ContainsAny(raw, ".eE") {
		return "number"
	}
	return "integer"
}

// needed names the JSON a property takes, leaving out the null that means "not given".
func needed(p *jsonschema.Schema) string {
	if p == nil {
		return "a value"
	}
	types := p.Types
	if p.Type != "" {
		types = []string{p.Type}
	}
	var names []string
	for _, ty := range types {
		switch ty {
		case "null":
		case "string":
			names = append(names, "a string")
		case "integer":
			names = append(names, "an integer")
		case "number":
			names = append(names, "a number")
		case "boolean":
			names = append(names, "true or false")
		case "array":
			what := "an array"
			if p.Items != nil && len(p.Items.Enum) > 0 {
				var vals []string
				for _, e := range p.Items.Enum {
					if s, ok := e.(string); ok {
						vals = append(vals, s)
					}
				}
				what = "an array of some of " + strings.Join(vals, ", ")
			} else if p.Items != nil && p.Items.Type != "" {
				what = "an array of " + p.Items.Type + "s"
			}
			names = append(names, what)
		case "object":
			names = append(names, "an object")
		}
	}
	if len(names) == 0 {
		return "a value"
	}
	return strings.Join(names, " or ")
}

// shown is a given value as a message quotes it: a scalar as written (a long string cut), an
// object or array by its kind.
func shown(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch k := JSONKind(raw); k {
	case "an object", "an array":
		return k
	case "a string":
		var s string
		json.Unmarshal(raw, &s)
		if r := []rune(s); len(r) > 40 {
			s = string(r[:40]) + "…"
		}
		return strconv.Quote(s)
	}
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}

// number writes a bound without a fraction when it has none.
func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// DecodeProblem says what a JSON decode error means without Go type names; tool input and the
// MCP transport's request params are both named this way.
func DecodeProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the input"
		}
		return fmt.Sprintf("%s: %s given, %s is needed", field, formats.GivenKind(te.Value), formats.TypeName(te.Type))
	case errors.As(err, &se):
		return syntaxProblem(err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// syntaxProblem describes JSON that does not parse, by byte offset.
func syntaxProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// syntaxProblemIn is syntaxProblem placed by line and column in the input it was decoding.
func syntaxProblemIn(err error, input []byte) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := formats.Position(input, se.Offset-1)
		return fmt.Sprintf("%s (at line %d, column %d)", strings.TrimPrefix(se.Error(), "json: "), line, col)
	}
	return syntaxProblem(err)
}

// ForModel writes an input named in an error for a model: by its field name, and a caller
// input as something of the session, which a model cannot change. The command line writes the
// same inputs as flags (commands' namer); the HTTP actions by their JSON names (errs.JSONNames).
func ForModel(in errs.Input) string {
	name := ""
	if len(in.Fields) > 0 {
		name = in.Fields[0]
	}
	switch in.Use {
	case errs.Name:
		return strings.ReplaceAll(name, "_", " ")
	case errs.Example:
		if ex, ok := modelExamples[name]; ok {
			return name + " (" + ex + ")"
		}
	case errs.Give:
		return ", and this session was started without one"
	case errs.Source:
		return " of this session"
	case errs.CairnLog:
		return "this session must be started with a cairn log"
	}
	return errs.JSONNames(in)
}

// modelExamples say where a model finds the value of a field a message asks for.
var modelExamples = map[string]string{"around_ref": "comment:<id> from a hit's ref"}

// forModel rewords err for a tool answer, keeping its code.
func forModel(err error) error { return errs.Reworded(err, ForModel) }

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

func (t *Tool) unknownFields(obj map[string]json.RawMessage) []string {
	var out []string
	for k := range obj {
		if _, ok := t.Schema.Properties[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Registry holds every operation, and every tool by name.
type Registry struct {
	tools     []*Tool
	byName    map[string]*Tool
	ops       []*Operation
	byCommand map[string]*Operation
	byAction  map[string]*Operation
}

// New registers every operation of cairn: the agent tools, the commands of the command line
// and the actions of the HTTP API, ready to be called.
func New() *Registry {
	r := Commands()
	for _, t := range r.tools {
		t.prepare()
	}
	return r
}

// Commands is the registry without the tools' schemas, which only a call needs: what the command
// line reads to build its commands, flags, help and completion on every start.
func Commands() *Registry {
	r := &Registry{byName: make(map[string]*Tool, 16), byCommand: make(map[string]*Operation, 64), byAction: make(map[string]*Operation, 16), ops: make([]*Operation, 0, 48)}
	families := [][]*Operation{workspaceOperations(), taskOperations(), sessionOperations(), memoryOperations(),
		spaceOperations(), boardOperations(), httpOperations(), runtimeOperations(), teamOperations()}
	for _, family := range families {
		for _, op := range family {
			r.add(op)
		}
	}
	return r
}

// add registers op under its command and its name.
func (r *Registry) add(op *Operation) {
	if op.Command != "" {
		if _, dup := r.byCommand[op.Command]; dup {
			panic("duplicate operation " + op.Command)
		}
		r.byCommand[op.Command] = op
	}
	if op.Name != "" && op.On(AgentTool|HTTP) {
		if _, dup := r.byAction[op.Name]; dup {
			panic("duplicate tool or action " + op.Name)
		}
		r.byAction[op.Name] = op
	}
	if op.Tool != nil {
		r.byName[op.Name] = op.Tool
		r.tools = append(r.tools, op.Tool) // families in the order of the spec: tasks, memory, space, board
	}
	r.ops = append(r.ops, op)
}

// List returns the agent tools in a stable order (families as in the spec, then definition order).
func (r *Registry) List() []*Tool { return r.tools }

// Operations returns every operation, families in the order of the command line.
func (r *Registry) Operations() []*Operation { return r.ops }

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

// bounds sets an integer property's range, and writes it where the property's description says
// {range} ("most hits ({range}, ...)" becomes "most hits (1-30, ...)"): the core constant is the
// one place the bound is written.
func bounds(prop string, min, max float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		if p == nil {
			panic("bounds on missing property " + prop)
		}
		p.Minimum, p.Maximum = &min, &max
		p.Description = strings.ReplaceAll(p.Description, "{range}", number(min)+"-"+number(max))
	}
}

// defaults writes a property's default where its description says {default}.
func defaults(prop string, value int) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		if p == nil {
			panic("default on missing property " + prop)
		}
		p.Description = strings.ReplaceAll(p.Description, "{default}", strconv.Itoa(value))
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

// JSONKind names the JSON type of a valid value, as messages about input quote it.
func JSONKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch c := raw[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
}

// ErrorBody is the JSON every face uses for a failed call: {"error": {"code", "message"}}.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail names the error code (INVALID_INPUT, NOT_FOUND, ...) and says what was wrong.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ErrorOf renders err as the error body.
func ErrorOf(err error) ErrorBody {
	return ErrorBody{Error: ErrorDetail{Code: errs.CodeOf(err).Name(), Message: err.Error()}}
}
