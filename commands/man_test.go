package commands

import (
	"os"
	"testing"
)

// The committed man page must match the command definitions; regenerate with `go run ./scripts/genman`.
func TestManPageIsFresh(t *testing.T) {
	want, err := ManPage()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../man/cairn.1")
	if err != nil {
		t.Fatalf("read man page: %v (generate it with: go run ./scripts/genman)", err)
	}
	if string(got) != want {
		t.Fatal("man/cairn.1 is stale; regenerate it with: go run ./scripts/genman")
	}
}
