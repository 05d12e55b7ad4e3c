package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-dev/cairn/core/errs"
)

// TestTransient: the failures of a database away for a moment are STORAGE_BUSY, those a call
// made again at once may get past are retried, and the others keep their own code.
func TestTransient(t *testing.T) {
	ctx := context.Background()
	// a real connect error: no server on this socket
	_, connectErr := pgconn.Connect(ctx, "host=/nonexistent-cairn-socket-dir port=5432 user=x dbname=y sslmode=disable connect_timeout=1")
	if connectErr == nil {
		t.Fatal("connected to nothing")
	}
	for _, c := range []struct {
		name  string
		err   error
		busy  bool
		again bool
	}{
		{"no such socket", connectErr, true, true},
		{"admin shutdown 57P01", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true, true},
		{"cannot connect now 57P03", &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true, true},
		{"serialization 40001", &pgconn.PgError{Code: "40001"}, true, true},
		{"deadlock 40P01", &pgconn.PgError{Code: "40P01"}, true, true},
		{"connection failure 08006", &pgconn.PgError{Code: "08006"}, true, true},
		{"too many connections 53300", &pgconn.PgError{Code: "53300"}, true, true},
		{"lock timeout 55P03", &pgconn.PgError{Code: "55P03"}, true, false},
		{"statement timeout 57014", &pgconn.PgError{Code: "57014"}, true, false},
		{"acquire past the wait", fmt.Errorf("acquire: %w", context.DeadlineExceeded), true, false},
		{"refused", &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED}, true, true},
		{"broke mid-call", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true, true},
		{"closed conn", fmt.Errorf("x: %w", pgconn.ErrConnClosed), true, true},
		{"closed pool", errors.New("closed pool"), true, false},
		{"syntax error 42601", &pgconn.PgError{Code: "42601", Message: "syntax error"}, false, false},
		{"no such database 3D000", &pgconn.PgError{Code: "3D000"}, false, false},
		{"wrong password 28P01", &pgconn.PgError{Code: "28P01"}, false, false},
		{"anything else", errors.New("boom"), false, false},
	} {
		why, again := transient(c.err)
		if (why != "") != c.busy || again != c.again {
			t.Errorf("%s: transient = %q, %v; want busy %v, again %v", c.name, why, again, c.busy, c.again)
		}
		s := &Store{wait: time.Second}
		err := s.dbErr(ctx, c.err, "do it")
		if want := map[bool]errs.Code{true: errs.Busy, false: errs.Internal}[c.busy]; errs.CodeOf(err) != want {
			t.Errorf("%s: dbErr code %v, want %v (%v)", c.name, errs.CodeOf(err), want, err)
		}
	}
	// a wrong password is a connect error around the server's refusal: not busy
	if why, _ := transient(fmt.Errorf("connect: %w", &pgconn.PgError{Code: "28P01"})); why != "" {
		t.Errorf("wrong password: busy (%s)", why)
	}
}

// TestRetry: a call that fails with a database restarting is made again until it succeeds or
// the wait has passed, then its last STORAGE_BUSY is the answer; other failures are not retried.
func TestRetry(t *testing.T) {
	ctx := context.Background()
	s := &Store{wait: 400 * time.Millisecond}
	restarting := s.dbErr(ctx, &pgconn.PgError{Code: "57P03"}, "search")
	n := 0
	if err := s.retry(ctx, func() error {
		if n++; n < 3 {
			return restarting
		}
		return nil
	}); err != nil || n != 3 {
		t.Errorf("back after two tries: %v after %d tries", err, n)
	}
	n = 0
	t0 := time.Now()
	err := s.retry(ctx, func() error { n++; return restarting })
	d := time.Since(t0)
	if errs.CodeOf(err) != errs.Busy || d < s.wait || d > s.wait+200*time.Millisecond {
		t.Errorf("never back: %v after %s (wait %s), %d tries", err, d, s.wait, n)
	}
	n = 0
	lock := s.dbErr(ctx, &pgconn.PgError{Code: "55P03"}, "import")
	if err := s.retry(ctx, func() error { n++; return lock }); errs.CodeOf(err) != errs.Busy || n != 1 {
		t.Errorf("lock timeout: %v after %d tries, want one", err, n)
	}
	n = 0
	if err := s.retry(ctx, func() error { n++; return errs.NotFoundf("nope") }); errs.CodeOf(err) != errs.NotFound || n != 1 {
		t.Errorf("not found: %v after %d tries", err, n)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.retry(cctx, func() error { return restarting }); errs.CodeOf(err) != errs.Cancelled {
		t.Errorf("cancelled: %v", err)
	}
}
