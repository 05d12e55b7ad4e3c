package board

// step marks the end of one step of an import (the names are in import.go and publish.go). It
// does nothing in cairn; a binary built with the cairnfault tag (importstep_fault.go) kills itself
// at a chosen step, for the tests that check every step leaves the old board or the new one.
var step = func(string) {}
