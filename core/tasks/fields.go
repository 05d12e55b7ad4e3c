package tasks

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/core/errs"
)

// A task's fields are declared here, once per type that holds them: the stored task, TaskCreate's
// input and TaskUpdate's fields, matched by JSON name. Everything else — the log's arguments,
// their decoding on replay, validation, an update's apply, a change's history — is derived from
// these three types (the fields table below), so a new field is a line in Task, a line in
// CreateInput (and in UpdateFields when TaskUpdate may change it), and a check in checks when it
// needs more than valid UTF-8 (a string) or any value (an int). A field is a string or an int
// (*string, *int in UpdateFields).

// Task is one entry of the store, exactly the JSON shape the tools answer (docs/tour.md, "JSON
// shapes") and a compaction snapshot holds. A field tagged omitempty is left out of the log's
// TaskCreate arguments and of a create's history when it is empty; the others are always written.
type Task struct {
	TaskID      int    `json:"taskid"`
	Status      string `json:"status"`
	Subject     string `json:"subject"`
	Description string `json:"description"`
}

// CreateInput is TaskCreate's input; the tags of the tools' input types give their schemas. A
// field not tagged omitempty is required: a logged TaskCreate without it is skipped on replay.
type CreateInput struct {
	Subject     string `json:"subject" jsonschema:"what the task is, one line of 1-200 characters"`
	Description string `json:"description,omitempty" jsonschema:"details, acceptance criteria, notes; may be empty, at most 64 KiB"`
}

// UpdateFields are the optional fields of TaskUpdate; nil means unchanged.
type UpdateFields struct {
	Status      *string `json:"status,omitempty" jsonschema:"new status: pending, inprogress, completed, or deleted (to withdraw a task)"`
	Subject     *string `json:"subject,omitempty" jsonschema:"new one-line subject"`
	Description *string `json:"description,omitempty" jsonschema:"new description (replaces the old one)"`
}

// checks validate a field's value, by JSON name, and give it as it is stored (a subject
// trimmed): a func(string) (string, error) for a string field, a func(int) (int, error) for an
// int one; a string field without one needs valid UTF-8 only, an int field any value.
var checks = map[string]any{
	"status":      func(v string) (string, error) { return v, CheckStatus(v) },
	"subject":     CheckSubject,
	"description": func(v string) (string, error) { return v, CheckDescription(v) },
}

// A field is one of the task's fields as the three types spell it.
type field struct {
	name string
	// task, create and update are its index in Task, CreateInput and UpdateFields; -1 when
	// TaskCreate does not set it (status) or TaskUpdate cannot change it.
	task, create, update int
	// omitEmpty: Task's tag has omitempty. required: CreateInput's tag has not.
	omitEmpty, required bool
	// check validates a value of the field's type (string or int) and gives it as stored.
	check func(reflect.Value) (reflect.Value, error)
}

// fields are the task's fields in Task's order; createFields and updateFields those TaskCreate
// and TaskUpdate take, in their inputs' order (the order of the log's arguments).
var fields, createFields, updateFields = deriveFields()

// createKeys and updateKeys are the keys of the log's TaskCreate and TaskUpdate arguments.
var createKeys, updateKeys = keysOf(createFields, nil), keysOf(updateFields, []string{"taskid"})

// FieldNames are the task's fields by JSON name in Task's order, taskid left out: the order in
// which a change's history lists them.
func FieldNames() []string { return keysOf(fields, nil) }

func keysOf(fs []*field, first []string) []string {
	keys := first
	for _, f := range fs {
		keys = append(keys, f.name)
	}
	return keys
}

// jsonTag is a struct field's JSON name and whether it has omitempty.
func jsonTag(sf reflect.StructField) (string, bool) {
	name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
	return name, strings.Contains(","+opts+",", ",omitempty,")
}

// checkOf is the check of a field of type t: its entry of checks, or the default.
func checkOf(name string, t reflect.Type) func(reflect.Value) (reflect.Value, error) {
	switch c := checks[name].(type) {
	case func(string) (string, error):
		if t.Kind() == reflect.String {
			return valueCheck(c)
		}
	case func(int) (int, error):
		if t.Kind() == reflect.Int {
			return valueCheck(c)
		}
	case nil:
		switch t.Kind() {
		case reflect.String:
			return valueCheck(validUTF8(name))
		case reflect.Int:
			return valueCheck(func(n int) (int, error) { return n, nil })
		}
	}
	panic(fmt.Sprintf("tasks: Task's field %q is a %s, with a check of %T: the fields table holds strings and ints", name, t, checks[name]))
}

// valueCheck is check on reflect values of its type.
func valueCheck[T any](check func(T) (T, error)) func(reflect.Value) (reflect.Value, error) {
	return func(v reflect.Value) (reflect.Value, error) {
		out, err := check(v.Interface().(T))
		return reflect.ValueOf(out), err
	}
}

// deriveFields matches the fields of CreateInput and UpdateFields to Task's by JSON name; a
// field of an input that the task does not hold, or of another type, is a programming error.
func deriveFields() (all, create, update []*field) {
	byName := map[string]*field{}
	task := reflect.TypeFor[Task]()
	for i := range task.NumField() {
		sf := task.Field(i)
		name, omit := jsonTag(sf)
		if name == "taskid" {
			continue
		}
		f := &field{name: name, task: i, create: -1, update: -1, omitEmpty: omit, check: checkOf(name, sf.Type)}
		all = append(all, f)
		byName[name] = f
	}
	match := func(t reflect.Type, pointer bool, set func(*field, int, bool)) (out []*field) {
		for i := range t.NumField() {
			sf := t.Field(i)
			name, omit := jsonTag(sf)
			f := byName[name]
			want := reflect.Type(nil)
			if f != nil {
				want = task.Field(f.task).Type
				if pointer {
					want = reflect.PointerTo(want)
				}
			}
			if f == nil || sf.Type != want {
				panic(fmt.Sprintf("tasks: %s.%s (%q) is no field of Task of its type", t.Name(), sf.Name, name))
			}
			set(f, i, omit)
			out = append(out, f)
		}
		return out
	}
	for name := range checks {
		if byName[name] == nil {
			panic(fmt.Sprintf("tasks: a check for %q, which Task does not have", name))
		}
	}
	create = match(reflect.TypeFor[CreateInput](), false, func(f *field, i int, omit bool) { f.create, f.required = i, !omit })
	update = match(reflect.TypeFor[UpdateFields](), true, func(f *field, i int, _ bool) { f.update = i })
	return all, create, update
}

func validUTF8(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		if !utf8.ValidString(v) {
			return "", errs.InvalidField(name, "%s is not valid UTF-8", name)
		}
		return v, nil
	}
}

func (f *field) value(t *Task) reflect.Value { return reflect.ValueOf(t).Elem().Field(f.task) }

// of is the field's value in t (a string or an int).
func (f *field) of(t *Task) any { return f.value(t).Interface() }

func (f *field) set(t *Task, v reflect.Value) { f.value(t).Set(v) }

// changed is the pointer to the new value an update gives the field; a nil pointer when it
// leaves it.
func (f *field) changed(u *UpdateFields) reflect.Value {
	return reflect.ValueOf(u).Elem().Field(f.update)
}

// orList is names as a message lists them: "a, b or c".
func orList(fs []*field) string {
	names := keysOf(fs, nil)
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// task validates TaskCreate's input and gives the task it makes, before the store numbers it.
func (in *CreateInput) task() (Task, error) {
	var t Task
	v := reflect.ValueOf(in).Elem()
	for _, f := range createFields {
		s, err := f.check(v.Field(f.create))
		if err != nil {
			return Task{}, err
		}
		f.set(&t, s)
	}
	return t, nil
}

// createArgs are the log's TaskCreate arguments for a task: its CreateInput fields in order, an
// empty one left out when Task's tag says omitempty (as json.Marshal writes a struct of them).
func createArgs(t *Task) json.RawMessage {
	b := []byte{'{'}
	for _, f := range createFields {
		v := f.value(t)
		if f.omitEmpty && v.IsZero() {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		s, _ := json.Marshal(v.Interface()) // a string or an int always marshals
		b = append(b, s...)
	}
	return append(b, '}')
}

// createChanges are a created task's fields as its history shows them (from nothing).
func createChanges(t *Task) map[string]FieldChange {
	ch := make(map[string]FieldChange, len(fields))
	for _, f := range fields {
		if v := f.value(t); !f.omitEmpty || !v.IsZero() {
			ch[f.name] = FieldChange{nil, v.Interface()}
		}
	}
	return ch
}

// none reports whether the update changes no field.
func (u *UpdateFields) none() bool {
	for _, f := range updateFields {
		if !f.changed(u).IsNil() {
			return false
		}
	}
	return true
}

// apply validates the fields u sets and gives t with them, as they are stored (a subject
// trimmed).
func (u *UpdateFields) apply(t Task) (Task, error) {
	if u.none() {
		return t, fmt.Errorf("no field to update; give %s", orList(updateFields))
	}
	for _, f := range updateFields {
		if p := f.changed(u); !p.IsNil() {
			s, err := f.check(p.Elem())
			if err != nil {
				return t, err
			}
			f.set(&t, s)
		}
	}
	return t, nil
}

// checked is u validated, with its values as they are stored.
func (u UpdateFields) checked() (UpdateFields, error) {
	t, err := u.apply(Task{})
	if err != nil {
		return u, err
	}
	for _, f := range updateFields {
		if p := f.changed(&u); !p.IsNil() {
			s := reflect.New(p.Type().Elem())
			s.Elem().Set(f.value(&t))
			p.Set(s)
		}
	}
	return u, nil
}

// onto is t with the fields u sets, which checked validated.
func (u *UpdateFields) onto(t Task) Task {
	for _, f := range updateFields {
		if p := f.changed(u); !p.IsNil() {
			f.set(&t, p.Elem())
		}
	}
	return t
}

// diff is every field that differs from a to b.
func diff(a, b Task) map[string]FieldChange {
	ch := map[string]FieldChange{}
	for _, f := range fields {
		if from, to := f.of(&a), f.of(&b); from != to {
			ch[f.name] = FieldChange{from, to}
		}
	}
	return ch
}
