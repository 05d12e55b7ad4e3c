//go:build !urfave_cli_no_docs

// Command genman writes man/cairn.1 from cairn's command definitions: go run ./scripts/genman
package main

import (
	"fmt"
	"os"

	"github.com/cairn-dev/cairn/commands"
)

func main() {
	page, err := commands.ManPage()
	if err != nil {
		fmt.Fprintln(os.Stderr, "genman:", err)
		os.Exit(1)
	}
	out := "man/cairn.1"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	if err := os.WriteFile(out, []byte(page), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genman:", err)
		os.Exit(1)
	}
}
