// Command cairn keeps an agent's place in long work; see README.md.
package main

import (
	"os"

	"github.com/cairn-dev/cairn/commands"
)

func main() {
	os.Exit(commands.Main())
}
