package strictjson

import (
	"errors"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	type rec struct {
		ID   string `json:"id"`
		Size int    `json:"size"`
	}
	for _, c := range []struct {
		in, err string
	}{
		{`{"id":"a","size":2}`, ""},
		{"  {\"id\":\"a\"}\n\t ", ""},
		{`{"id":"a","sise":2}`, `unknown field "sise"`},
		{`{"id":"a"}{"id":"b"}`, ErrTrailing.Error()},
		{`{"id":"a"}}`, ErrTrailing.Error()},
		{`{"id":"a"} x`, ErrTrailing.Error()},
		{`{"id":1}`, "cannot unmarshal number"},
		{`{"id":`, "unexpected EOF"},
		{``, "EOF"},
	} {
		var r rec
		err := Decode([]byte(c.in), &r)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("Decode(%q) = %v, want success", c.in, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Decode(%q) = %v, want an error containing %q", c.in, err, c.err)
		}
	}
	var r rec
	if err := Decode([]byte(`{"id":"a"} []`), &r); !errors.Is(err, ErrTrailing) {
		t.Errorf("trailing value: %v, want ErrTrailing", err)
	}
}
