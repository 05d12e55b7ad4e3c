//go:build cairnfault && unix

package spaces

import (
	"fmt"
	"os"
	"syscall"
)

// In a test binary built with -tags cairnfault, CAIRN_FAULT_SPACE_IMPORT=NAME makes a bulk space
// import kill its own process with SIGKILL at the end of step NAME, and =trace prints each step's
// name on stderr as it ends.
func init() {
	at := os.Getenv("CAIRN_FAULT_SPACE_IMPORT")
	if at == "" {
		return
	}
	importStep = func(name string) {
		if at == "trace" {
			fmt.Fprintf(os.Stderr, "space import step %s\n", name)
			return
		}
		if name == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
}
