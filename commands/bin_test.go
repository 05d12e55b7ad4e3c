package commands_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binDir holds the binaries built for this run of the test binary; TestMain makes it and removes
// it when every test is done.
var binDir string

// builtBinary is cairn built with some build tags, once per test run: the first test that asks
// for it builds it, the others wait for that build and run the same file. No test writes to it.
type builtBinary struct {
	name, tags string
	once       sync.Once
	bin        string
	err        error
}

var (
	// cairnStd is the binary as the README installs it.
	cairnStd = &builtBinary{name: "std", tags: "urfave_cli_no_docs"}
	// cairnFault is built with the cairnfault tag (CAIRN_FAULT_* steps kill the process).
	cairnFault = &builtBinary{name: "fault", tags: "cairnfault"}
)

// path builds the binary on the first call and returns its path; a failed build fails every
// test that needs it. Each binary is alone in its directory, so a test may put that on PATH.
func (b *builtBinary) path(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		if binDir == "" {
			b.err = fmt.Errorf("no directory for built binaries: TestMain did not run")
			return
		}
		dir := filepath.Join(binDir, b.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.err = err
			return
		}
		bin := filepath.Join(dir, "cairn")
		if out, err := exec.Command("go", "build", "-tags", b.tags, "-o", bin, "..").CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build -tags %s: %v\n%s", b.tags, err, out)
			return
		}
		b.bin = bin
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

// withBinDir runs the tests with binDir made, and removes it after them.
type withBinDir struct{ m *testing.M }

func (w withBinDir) Run() int {
	dir, err := os.MkdirTemp("", "cairn-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	return w.m.Run()
}
