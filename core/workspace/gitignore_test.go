package workspace

import (
	"strings"
	"testing"
)

func TestGitignoreEdit(t *testing.T) {
	pats := []string{"/spaces.db", "/board/", "/.cairn/"}
	after, added := GitignoreEdit(nil, "# h", pats)
	if string(after) != "# h\n/spaces.db\n/board/\n/.cairn/\n" || len(added) != 3 {
		t.Fatalf("fresh: %q %v", after, added)
	}
	// every line kept byte for byte, a missing final newline added, a pattern without its slash counts
	before := "node_modules/\r\n  board/  \n# own"
	after, added = GitignoreEdit([]byte(before), "# h", pats)
	if !strings.HasPrefix(string(after), before+"\n\n# h\n") || strings.Join(added, " ") != "/spaces.db /.cairn/" {
		t.Fatalf("extend: %q %v", after, added)
	}
	again, none := GitignoreEdit(after, "# h", pats)
	if string(again) != string(after) || none != nil {
		t.Fatalf("second run changed it: %q %v", again, none)
	}
}
