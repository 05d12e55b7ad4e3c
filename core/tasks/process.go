package tasks

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// A runtime that tells its MCP server no session (Gemini CLI 0.61.0) still starts the server and
// its hooks from one process: the hooks name the session, and the server finds it by that
// process, its nearest ancestor the hooks recorded. A process is named "<pid>:<start>" (its start
// time in clock ticks since boot, /proc/<pid>/stat), so a pid reused by a later process is not
// taken for it; where there is no /proc, by "<pid>" alone.

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 8

// procStat is a process's parent pid and start time from /proc/<pid>/stat; ok false without /proc.
func procStat(pid int) (ppid int, start string, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields count from the last ')'
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return 0, "", false
	}
	return ppid, f[19], true
}

// processName is how ProcessAncestors names process pid.
func processName(pid int) string {
	if _, start, ok := procStat(pid); ok {
		return strconv.Itoa(pid) + ":" + start
	}
	return strconv.Itoa(pid)
}

// shells are the programs a runtime may run a hook's command line with; one that did not exec
// the command stands between the hook and the runtime.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "fish": true, "busybox": true}

// ProcessAncestors names this process's ancestors, nearest first, at most maxAncestors (without
// /proc, the parent alone).
func ProcessAncestors() []string {
	pid := os.Getppid()
	if _, _, ok := procStat(pid); !ok {
		return []string{strconv.Itoa(pid)}
	}
	var out []string
	for len(out) < maxAncestors && pid > 1 {
		out = append(out, processName(pid))
		ppid, _, ok := procStat(pid)
		if !ok {
			break
		}
		pid = ppid
	}
	return out
}

// RuntimeProcess names the runtime process a hook runs under: its parent, or past a shell that
// ran the hook's command line without exec'ing it, that shell's parent.
func RuntimeProcess() string {
	pid := os.Getppid()
	for range 2 {
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if err != nil || !shells[strings.TrimSpace(string(comm))] {
			break
		}
		ppid, _, ok := procStat(pid)
		if !ok || ppid <= 1 {
			break
		}
		pid = ppid
	}
	return processName(pid)
}

// processAlive reports whether the process a name gives still runs (true where it cannot tell).
func processAlive(name string) bool {
	pidText, start, hasStart := strings.Cut(name, ":")
	pid, err := strconv.Atoi(pidText)
	if err != nil {
		return false
	}
	_, now, ok := procStat(pid)
	if !ok {
		_, err := os.Stat("/proc/self")
		return err != nil // no /proc: cannot tell
	}
	return !hasStart || now == start
}
