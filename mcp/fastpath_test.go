package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The gate's one-scan readings of a message (members, plainString, plainCall) say what
// json.Unmarshal would, or step aside: never another answer.
func FuzzGateFastPaths(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"X","arguments":{"query":"q"}}}`,
		` { "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "tools/call" , "params" : { "_meta" : {"sessionId":"s","n":[1,-2.5,3e400]} , "name" : "X" } } `,
		`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","\u0069d":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","ID":1,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/\u0063all","params":{"Name":"X"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tøøls","params":{"name":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"X","arguments":null,"_meta":{"a":1e5}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"X","name":"Y"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":null,"inputResponses":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":[],"name":"X"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"big":` + string(make([]byte, 0)) + `1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000}}}`,
		`{}`, `[]`, `"x"`, `{"a":{}}`, `{"a":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if !json.Valid(msg) {
			return
		}
		if m, ok := members(msg); ok {
			var want map[string]json.RawMessage
			if err := json.Unmarshal(msg, &want); err != nil {
				t.Fatalf("members read %s, json.Unmarshal fails: %v", msg, err)
			}
			if !reflect.DeepEqual(m, want) {
				t.Fatalf("members read %s as %q, json.Unmarshal as %q", msg, m, want)
			}
		}
		if s, ok := plainString(msg); ok {
			var want string
			if err := json.Unmarshal(msg, &want); err != nil || s != want {
				t.Fatalf("plainString read %s as %q, json.Unmarshal as %q (%v)", msg, s, want, err)
			}
		}
		if plainCall(msg) {
			if err := json.Unmarshal(msg, new(sdk.CallToolParamsRaw)); err != nil {
				t.Fatalf("plainCall passed %s, json.Unmarshal fails: %v", msg, err)
			}
		}
		checkParts(t, msg)
		var m map[string]json.RawMessage
		if json.Unmarshal(msg, &m) == nil && plainCall(m["params"]) {
			if err := json.Unmarshal(m["params"], new(sdk.CallToolParamsRaw)); err != nil {
				t.Fatalf("plainCall passed %s, json.Unmarshal fails: %v", m["params"], err)
			}
		}
		if json.Unmarshal(msg, &m) == nil {
			checkParts(t, m["params"])
		}
	})
}

// checkParts holds callParts to what json.Unmarshal makes of params: the raw arguments, the name
// (when plainString reads it) and the _meta the direct path runs a call with.
func checkParts(t *testing.T, params json.RawMessage) {
	t.Helper()
	name, args, meta, ok := callParts(params)
	if !ok {
		return
	}
	var want sdk.CallToolParamsRaw
	if err := json.Unmarshal(params, &want); err != nil {
		t.Fatalf("callParts read %s, json.Unmarshal fails: %v", params, err)
	}
	if string(args) != string(want.Arguments) {
		t.Fatalf("callParts read the arguments of %s as %s, json.Unmarshal as %s", params, args, want.Arguments)
	}
	if s, ok := plainString(name); ok && s != want.Name {
		t.Fatalf("callParts read the name of %s as %q, json.Unmarshal as %q", params, s, want.Name)
	}
	if meta != nil {
		var m map[string]any
		if err := json.Unmarshal(meta, &m); err != nil || !reflect.DeepEqual(m, map[string]any(want.Meta)) {
			t.Fatalf("callParts read the _meta of %s as %v, json.Unmarshal as %v (%v)", params, m, want.Meta, err)
		}
	} else if want.Meta != nil {
		t.Fatalf("callParts found no _meta in %s, json.Unmarshal %v", params, want.Meta)
	}
}

// The usual messages take the fast paths.
func TestGateFastPathsTaken(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","n":12},"name":"SearchWorkspaceTasks","arguments":{"query":"q"}}}`)
	m, ok := members(msg)
	if !ok || len(m) != 4 {
		t.Fatalf("members: %v %q", ok, m)
	}
	if s, ok := plainString(m["method"]); !ok || s != "tools/call" {
		t.Fatalf("plainString: %v %q", ok, s)
	}
	if !plainCall(m["params"]) {
		t.Fatal("plainCall: false")
	}
}
