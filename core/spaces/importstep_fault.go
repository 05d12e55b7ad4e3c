//go:build cairnfault && unix

package spaces

import "github.com/cairn-dev/cairn/core/workspace"

// In a test binary built with -tags cairnfault, CAIRN_FAULT_SPACE_IMPORT=NAME makes a bulk space
// import kill its own process with SIGKILL at the end of step NAME, and =trace prints each step's
// name on stderr as it ends.
func init() {
	if f := workspace.FaultStep("CAIRN_FAULT_SPACE_IMPORT", "space import"); f != nil {
		importStep = f
	}
}
