//go:build unix

package board

import "syscall"

// processCPU is the CPU time the process has used (user and system, every thread), in
// nanoseconds; benchmarks report it per operation because wall time on a shared machine counts
// the time other processes held the cores.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
