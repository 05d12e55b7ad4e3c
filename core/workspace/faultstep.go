//go:build cairnfault && unix

package workspace

import (
	"fmt"
	"os"
	"syscall"
)

// FaultStep is the step hook of an import in a test binary built with -tags cairnfault: with the
// environment variable env set to NAME, the process kills itself with SIGKILL at the end of step
// NAME; set to trace, each step's name is printed on stderr after what as it ends. It is nil
// when env is not set.
func FaultStep(env, what string) func(name string) {
	at := os.Getenv(env)
	if at == "" {
		return nil
	}
	return func(name string) {
		if at == "trace" {
			fmt.Fprintf(os.Stderr, "%s step %s\n", what, name)
			return
		}
		if name == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
}
