package tasks

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/core/errs"
)

// A refused value names the field it is about, so each face can point at it in its own words.
func TestRefusalsNameTheirField(t *testing.T) {
	_, subject := CheckSubject("")
	for field, err := range map[string]error{
		"status":      CheckStatus("done"),
		"subject":     subject,
		"description": CheckDescription(strings.Repeat("x", MaxDescriptionKB*1024+1)),
	} {
		if errs.CodeOf(err) != errs.Invalid || errs.FieldOf(err) != field {
			t.Errorf("%s: %v names field %q", field, err, errs.FieldOf(err))
		}
	}
}

// The fields table is derived from Task, CreateInput and UpdateFields by JSON name: what each
// operation takes, in the order the log writes it, and what replay requires.
func TestFieldsTable(t *testing.T) {
	var got []string
	for _, f := range fields {
		got = append(got, fmt.Sprintf("%s create=%v update=%v required=%v omitempty=%v", f.name, f.create >= 0, f.update >= 0, f.required, f.omitEmpty))
	}
	want := []string{
		"status create=false update=true required=false omitempty=false",
		"subject create=true update=true required=true omitempty=false",
		"description create=true update=true required=false omitempty=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := fmt.Sprint(FieldNames()); got != "[status subject description]" {
		t.Errorf("FieldNames = %s", got)
	}
	if fmt.Sprint(createKeys, updateKeys) != "[subject description] [taskid status subject description]" {
		t.Errorf("keys: %v %v", createKeys, updateKeys)
	}
	// the log's arguments are what json.Marshal wrote of the structs they replaced
	task := Task{Subject: "a <b> & \u2028", Description: ""}
	if got := string(createArgs(&task)); got != `{"subject":"a \u003cb\u003e \u0026 \u2028","description":""}` {
		t.Errorf("createArgs = %s", got)
	}
	if got := orList(updateFields); got != "status, subject or description" {
		t.Errorf("orList = %q", got)
	}
}

// A field is a string or an int: an int field without a check takes any value, a check of the
// wrong type for its field is a programming error caught when the table is built.
func TestFieldChecksByType(t *testing.T) {
	v, err := checkOf("n", reflect.TypeFor[int]())(reflect.ValueOf(7))
	if err != nil || v.Int() != 7 {
		t.Errorf("int field without a check: %v, %v", v, err)
	}
	if _, err := checkOf("subject", reflect.TypeFor[string]())(reflect.ValueOf(" ")); errs.FieldOf(err) != "subject" {
		t.Errorf("subject check: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a string check on an int field did not panic")
		}
	}()
	checkOf("subject", reflect.TypeFor[int]())
}
