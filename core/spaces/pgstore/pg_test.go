package pgstore

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The tests need a PostgreSQL server: CAIRN_TEST_POSTGRES is its DSN (scripts/pg-test.sh starts a
// throwaway one and sets it). Without it they skip, and TestMain says so on one line; on CI
// (CI=true) they fail instead.
func TestMain(m *testing.M) {
	if os.Getenv("CAIRN_TEST_POSTGRES") == "" {
		if os.Getenv("CI") == "true" {
			fmt.Println("pgstore: CAIRN_TEST_POSTGRES is not set; CI runs the PostgreSQL tests (scripts/pg-test.sh)")
			os.Exit(1)
		}
		fmt.Println("pgstore: PostgreSQL tests skipped: CAIRN_TEST_POSTGRES is not set (scripts/pg-test.sh starts a server)")
	}
	os.Exit(m.Run())
}

var dbSeq atomic.Int64

// withDB gives the base DSN with another database name.
func withDB(t testing.TB, dsn, db string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + db
		return u.String()
	}
	return dsn + " dbname=" + db
}

// newDatabase creates an empty database (with the given LC_CTYPE and LC_COLLATE) for one test
// and drops it when the test ends; it skips the test without a server.
func newDatabase(t testing.TB, ctype string) string {
	t.Helper()
	base := os.Getenv("CAIRN_TEST_POSTGRES")
	if base == "" {
		t.Skip("no PostgreSQL (CAIRN_TEST_POSTGRES)")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to CAIRN_TEST_POSTGRES: %v", err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("cairn_test_%d_%d", os.Getpid(), dbSeq.Add(1))
	if _, err := admin.Exec(ctx, fmt.Sprintf(`CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_CTYPE '%s' LC_COLLATE '%s'`, name, ctype, ctype)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		c.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
	})
	return withDB(t, base, name)
}

// openTest opens a store on a fresh database.
func openTest(t testing.TB) (*Store, string) {
	t.Helper()
	dsn := newDatabase(t, "C.UTF-8")
	st, err := Open(context.Background(), dsn, Options{Wait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st, dsn
}
