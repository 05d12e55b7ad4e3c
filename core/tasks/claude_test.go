package tasks

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/core/errs"
)

const transcript = "../../fixtures/claude/transcript.jsonl"

func TestClaudeTranscriptLiveBranch(t *testing.T) {
	before, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(transcript, time.Second)
	res, err := s.List(context.Background(), Stop{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Task{
		{TaskID: 1, Status: Completed, Subject: "Audit the login form", Description: "List every field and validation rule of the current form."},
		{TaskID: 2, Status: Pending, Subject: "認証フローを変更しないことを確認", Description: "Compare the session cookie and redirect before and after."},
		{TaskID: 3, Status: Pending, Subject: "Write the SQLite migration", Description: "sessions table first"},
	}
	if !reflect.DeepEqual(res.Tasks, want) {
		t.Fatalf("tasks = %+v", res.Tasks)
	}
	chk, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(chk.Skipped) != 2 || chk.Skipped[0].Line != 9 || !strings.Contains(chk.Skipped[1].Reason, "abandoned branch") {
		t.Fatalf("skipped = %+v", chk.Skipped)
	}
	// as of line 9 the failed call's result was not written yet, and the live branch ends at u8 (line 9)
	early, _ := s.List(context.Background(), Stop{Line: 9}, nil)
	if len(early.Tasks) != 2 || early.Tasks[1].Status != Deleted || early.Tasks[0].Status != InProgress {
		t.Fatalf("as of line 9: %+v", early.Tasks)
	}
	// a rewound conversation: the newest line is the fork, so its task is live and later ones are not
	fork, _ := s.List(context.Background(), Stop{Line: 12}, nil)
	if len(fork.Tasks) != 3 || fork.Tasks[2].Subject != "Rewrite the whole auth module" || fork.Tasks[1].Status != Pending {
		t.Fatalf("as of the fork: %+v", fork.Tasks)
	}
	if _, err := s.Create(context.Background(), "never written", ""); errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "never writes") {
		t.Fatalf("create on a transcript: %v", err)
	}
	after, _ := os.ReadFile(transcript)
	if string(before) != string(after) {
		t.Fatal("the transcript was modified")
	}
	if _, err := os.Stat(transcript + ".lock"); err == nil {
		t.Fatal("a lock file was created beside the transcript")
	}
}

func TestDetectFormat(t *testing.T) {
	f, _ := os.Open(transcript)
	defer f.Close()
	if got := DetectFormat(f); got != FormatClaude {
		t.Fatalf("transcript detected as %s", got)
	}
	cairn := call("a", "TaskCreate", `{"subject":"x"}`)
	if got := DetectFormat(strings.NewReader("\nnot json\n" + cairn)); got != FormatCairn {
		t.Fatalf("cairn log detected as %s", got)
	}
	if got := DetectFormat(strings.NewReader("")); got != FormatCairn {
		t.Fatalf("empty log detected as %s", got)
	}
}

func TestClaudeInputs(t *testing.T) {
	log := `{"parentUuid":null,"sessionId":"s","type":"assistant","uuid":"a","message":{"content":[{"type":"tool_use","id":"t1","name":"TaskCreate","input":{"subject":"one","activeForm":"x"}}]}}
{"parentUuid":"a","sessionId":"s","type":"assistant","uuid":"b","message":{"content":[{"type":"tool_use","id":"t2","name":"TaskUpdate","input":{"taskId":1,"status":"in_progress"}}]}}
{"parentUuid":"b","sessionId":"s","type":"assistant","uuid":"c","message":{"content":[{"type":"tool_use","id":"t3","name":"TaskUpdate","input":{"taskId":"x1","status":"completed"}}]}}
{"parentUuid":"c","sessionId":"s","type":"user","uuid":"d","message":{"content":"plain text content"}}
`
	r := NewReplayer()
	ReplayClaude(strings.NewReader(log), r, Stop{}, nil)
	got := r.Store.Tasks()
	if len(got) != 1 || got[0].Status != InProgress {
		t.Fatalf("tasks = %+v", got)
	}
	if len(r.Skips) != 1 || r.Skips[0].Line != 3 {
		t.Fatalf("skips = %+v", r.Skips)
	}
}
