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
// needs more than valid UTF-8. A field is a string (*string in UpdateFields).

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
// trimmed); a field without one needs valid UTF-8 only.
var checks = map[string]func(string) (string, error){
	"status":      func(v string) (string, error) { return v, CheckStatus(v) },
	"subject":     CheckSubject,
	"description": func(v string) (string, error) { return v, CheckDescription(v) },
}

// A field is one of the task's string fields as the three types spell it.
type field struct {
	name string
	// task, create and update are its index in Task, CreateInput and UpdateFields; -1 when
	// TaskCreate does not set it (status) or TaskUpdate cannot change it.
	task, create, update int
	// omitEmpty: Task's tag has omitempty. required: CreateInput's tag has not.
	omitEmpty, required bool
	check               func(string) (string, error)
}

// fields are the task's fields in Task's order; createFields and updateFields those TaskCreate
// and TaskUpdate take, in their inputs' order (the order of the log's arguments).
var fields, createFields, updateFields = deriveFields()

// createKeys and updateKeys are the keys of the log's TaskCreate and TaskUpdate arguments.
var createKeys, updateKeys = keysOf(createFields, nil), keysOf(updateFields, []string{"taskid"})

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

// deriveFields matches the fields of CreateInput and UpdateFields to Task's by JSON name; a
// field of an input that the task does not hold, or is no string, is a programming error.
func deriveFields() (all, create, update []*field) {
	byName := map[string]*field{}
	task := reflect.TypeFor[Task]()
	for i := range task.NumField() {
		sf := task.Field(i)
		name, omit := jsonTag(sf)
		if name == "taskid" {
			continue
		}
		if sf.Type.Kind() != reflect.String {
			panic(fmt.Sprintf("tasks: Task.%s is no string: the fields table holds strings only", sf.Name))
		}
		check := checks[name]
		if check == nil {
			check = validUTF8(name)
		}
		f := &field{name: name, task: i, create: -1, update: -1, omitEmpty: omit, check: check}
		all = append(all, f)
		byName[name] = f
	}
	match := func(t reflect.Type, kind reflect.Type, set func(*field, int, bool)) (out []*field) {
		for i := range t.NumField() {
			sf := t.Field(i)
			name, omit := jsonTag(sf)
			f := byName[name]
			if f == nil || sf.Type != kind {
				panic(fmt.Sprintf("tasks: %s.%s (%q) is no %s field of Task", t.Name(), sf.Name, name, kind))
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
	create = match(reflect.TypeFor[CreateInput](), reflect.TypeFor[string](), func(f *field, i int, omit bool) { f.create, f.required = i, !omit })
	update = match(reflect.TypeFor[UpdateFields](), reflect.TypeFor[*string](), func(f *field, i int, _ bool) { f.update = i })
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

func (f *field) of(t *Task) string { return reflect.ValueOf(t).Elem().Field(f.task).String() }

func (f *field) set(t *Task, v string) { reflect.ValueOf(t).Elem().Field(f.task).SetString(v) }

// changed is the new value an update gives the field; nil when it leaves it.
func (f *field) changed(u *UpdateFields) *string {
	return reflect.ValueOf(u).Elem().Field(f.update).Interface().(*string)
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
		s, err := f.check(v.Field(f.create).String())
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
		v := f.of(t)
		if f.omitEmpty && v == "" {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		s, _ := json.Marshal(v) // a string always marshals
		b = append(b, s...)
	}
	return append(b, '}')
}

// createChanges are a created task's fields as its history shows them (from nothing).
func createChanges(t *Task) map[string]FieldChange {
	ch := make(map[string]FieldChange, len(fields))
	for _, f := range fields {
		if v := f.of(t); !f.omitEmpty || v != "" {
			ch[f.name] = FieldChange{nil, v}
		}
	}
	return ch
}

// none reports whether the update changes no field.
func (u *UpdateFields) none() bool {
	for _, f := range updateFields {
		if f.changed(u) != nil {
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
		if p := f.changed(u); p != nil {
			s, err := f.check(*p)
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
	v := reflect.ValueOf(&u).Elem()
	for _, f := range updateFields {
		if f.changed(&u) != nil {
			s := f.of(&t)
			v.Field(f.update).Set(reflect.ValueOf(&s))
		}
	}
	return u, nil
}

// onto is t with the fields u sets, which checked validated.
func (u *UpdateFields) onto(t Task) Task {
	for _, f := range updateFields {
		if p := f.changed(u); p != nil {
			f.set(&t, *p)
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
