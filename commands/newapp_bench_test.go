package commands

import (
	"io"
	"testing"
)

// BenchmarkNewApp is the command tree every run of cairn builds before it parses its arguments.
func BenchmarkNewApp(b *testing.B) {
	for b.Loop() {
		NewApp(newEnv(nil, io.Discard, io.Discard))
	}
}
