package sessionlog

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
	"github.com/cairn-dev/cairn/core/workspace/workspacetest"
)

func lines(t *testing.T, s string) []Line {
	t.Helper()
	sc := NewScanner(strings.NewReader(s))
	var out []Line
	for sc.Next() {
		l := sc.Line()
		l.Data = append([]byte(nil), l.Data...)
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestScanner(t *testing.T) {
	long := strings.Repeat("x", 3<<20) // longer than the reader's buffer
	got := lines(t, "a\r\n\n"+long+"\nlast")
	if len(got) != 4 {
		t.Fatalf("got %d lines", len(got))
	}
	if string(got[0].Data) != "a" || got[1].No != 2 || len(got[1].Data) != 0 {
		t.Fatalf("first lines wrong: %+v", got[:2])
	}
	if len(got[2].Data) != len(long) || got[2].Torn {
		t.Fatalf("long line: %d bytes torn=%v", len(got[2].Data), got[2].Torn)
	}
	if !got[3].Torn || string(got[3].Data) != "last" || got[3].No != 4 {
		t.Fatalf("torn line: %+v", got[3])
	}
	if n := len(lines(t, "")); n != 0 {
		t.Fatalf("empty input gave %d lines", n)
	}
}

func TestAppendIsolatesTornTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.jsonl")
	os.WriteFile(p, []byte(`{"type":"message"}`+"\n"+`{"type":"tool_call","na`), 0o644)
	if err := AppendLines(p, []byte(`{"type":"system"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	want := `{"type":"message"}` + "\n" + `{"type":"tool_call","na` + TornMark + "\n" + `{"type":"system"}` + "\n"
	if string(data) != want {
		t.Fatalf("log = %q", data)
	}
}

func TestUpdateWaitsForLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.jsonl")
	held, err := workspace.LockFile(context.Background(), p+".lock", true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	log := Log{Path: p, Wait: 50 * time.Millisecond}
	err = log.Update(context.Background(), func(io.Reader) ([]any, error) { return []any{System{Type: TypeSystem}}, nil })
	if errs.CodeOf(err) != errs.Busy {
		t.Fatalf("err = %v, want STORAGE_BUSY", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("a write happened without the lock")
	}
	if err := log.Read(context.Background(), func(io.Reader) error { return nil }); errs.CodeOf(err) != errs.Busy {
		t.Fatalf("shared read under an exclusive lock: %v", err)
	}
}

// A cancel while another process holds the log's lock ends the wait at once with CANCELLED (exit
// 130), for a write and a read alike, instead of waiting out --wait; nothing is written.
func TestLockWaitCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.jsonl")
	held, err := workspace.LockFile(context.Background(), p+".lock", true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	log := Log{Path: p, Wait: time.Minute}
	calls := map[string]func(context.Context) error{
		"update": func(ctx context.Context) error {
			return log.Update(ctx, func(io.Reader) ([]any, error) { return []any{System{Type: TypeSystem}}, nil })
		},
		"versioned update": func(ctx context.Context) error {
			_, err := log.UpdateVersioned(ctx, func(Version, io.Reader) ([]any, error) { return []any{System{Type: TypeSystem}}, nil })
			return err
		},
		"read": func(ctx context.Context) error { return log.Read(ctx, func(io.Reader) error { return nil }) },
	}
	for name, call := range calls {
		best := time.Hour
		for range 3 {
			took, err := workspacetest.CancelAfter(50*time.Millisecond, call)
			if took < 0 {
				t.Fatalf("%s returned before its cancel: %v", name, err)
			}
			if errs.CodeOf(err) != errs.Cancelled {
				t.Fatalf("%s cancelled while the lock is held: %v (code %s), want CANCELLED", name, err, errs.CodeOf(err).Name())
			}
			if best = min(best, took); best < workspacetest.CancelBudget {
				break
			}
		}
		if best >= workspacetest.CancelBudget {
			t.Errorf("%s returned %s after its cancel at best, want < %s", name, best, workspacetest.CancelBudget)
		}
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("a write happened without the lock")
	}
}

func TestCreateLogNeverOverwrites(t *testing.T) {
	p := filepath.Join(t.TempDir(), "new.jsonl")
	os.WriteFile(p, []byte("keep\n"), 0o644)
	if err := CreateLog(p, []any{System{Type: TypeSystem}}); errs.CodeOf(err) != errs.Invalid {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "keep\n" {
		t.Fatalf("file changed: %q", data)
	}
}
