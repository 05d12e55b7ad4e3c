package commands_test

import (
	"net"
	"os"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// teamScriptCmds are the testscript commands of the team server scripts.
var teamScriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// freeport VAR: a free loopback address HOST:PORT in $VAR
	"freeport": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: freeport VAR")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		addr := ln.Addr().String()
		ln.Close()
		ts.Setenv(args[0], addr)
	},
	// waitport ADDR: wait (up to 20 s) until something listens on ADDR
	"waitport": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: waitport ADDR")
		}
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if c, err := net.DialTimeout("tcp", args[0], 200*time.Millisecond); err == nil {
				c.Close()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		ts.Fatalf("nothing listens on %s", args[0])
	},
	// token VAR FILE: the member token 'cairn serve member add' printed in FILE (stdout) into $VAR
	"token": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: token VAR FILE")
		}
		tok := regexp.MustCompile(`cairn_[0-9a-f]{16}_[0-9a-f]{64}`).FindString(ts.ReadFile(args[1]))
		if tok == "" {
			ts.Fatalf("no token in %s", args[1])
		}
		ts.Setenv(args[0], tok)
	},
	// expand SRC DST: SRC with $VARs expanded, written to DST
	"expand": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: expand SRC DST")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
	},
}
