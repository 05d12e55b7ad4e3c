//go:build !unix

package board

// processCPU is not measured on this system; benchmarks report 0 CPU time.
func processCPU() int64 { return 0 }
