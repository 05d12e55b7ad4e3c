package commands

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/board"
	"github.com/cairn-dev/cairn/core/errs"
	// the PostgreSQL team store (cairn serve --store postgres://...) sets team.Postgres
	_ "github.com/cairn-dev/cairn/core/spaces/pgstore"
	"github.com/cairn-dev/cairn/core/team"
	"github.com/cairn-dev/cairn/core/tools"
	"github.com/cairn-dev/cairn/web"
)

// shutdownGrace is how long in-flight requests get to finish after SIGINT or SIGTERM.
const shutdownGrace = 5 * time.Second

func serveCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the board daemon: the HTTP API (POST /api) and the Search page, with the board kept in memory",
		Description: "Loads the board once and keeps it in memory, rebuilding it when board.db or a JSON file changes.\n" +
			"Every /api request needs the token written to .cairn/serve.token (mode 0600) as\n" +
			"\"Authorization: Bearer <token>\"; the page URL printed on stderr carries it once.\n" +
			"Tools called over /api run with this command's identity flags (--user, --task, --card, ...).\n" +
			"One daemon per workspace: a second one exits with STORAGE_BUSY (4) while .cairn/serve.lock is held.\n" +
			"Stops cleanly on SIGINT or SIGTERM. The log on stderr holds durations and counts, never queries.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:7777", Usage: "listen address HOST:PORT (port 0 picks a free one)"},
			&cli.BoolFlag{Name: "allow-remote", Aliases: []string{"insecure-remote"}, Usage: "allow a listen address other than loopback over plain HTTP (without --tls-cert: use it only behind a TLS proxy or on a trusted network)"},
			&cli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with this certificate `FILE` (PEM; with --tls-key); a non-loopback --addr then needs no --insecure-remote"},
			&cli.StringFlag{Name: "tls-key", Usage: "the private key `FILE` of --tls-cert (PEM)"},
			&cli.StringFlag{Name: "store", Usage: "the team store: sqlite (default: [serve] store, else this workspace's spaces.db and team.db) or postgres://..."},
		},
		Subcommands: []*cli.Command{serveMemberCommand(env)},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			addr := c.String("addr")
			cert, key := c.String("tls-cert"), c.String("tls-key")
			if (cert == "") != (key == "") {
				return errs.Invalidf("--tls-cert and --tls-key go together: give both, or neither")
			}
			if err := web.CheckAddr(addr, c.Bool("allow-remote") || cert != ""); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, env, addr, serveTeam{store: c.String("store"), cert: cert, key: key})
		},
	}
}

// serveTeam is how cairn serve answers the team API: its store and its TLS files.
type serveTeam struct {
	store, cert, key string
}

// runServe loads the board, writes the token, listens on addr and serves until ctx ends.
func runServe(ctx context.Context, env *Env, addr string, tm serveTeam) error {
	tc, err := env.toolContext()
	if err != nil {
		return err
	}
	tc.SpaceServer = nil // the server answers from its own store, never from another server
	ws := tc.Workspace
	if tm.cert != "" {
		if _, err := tls.LoadX509KeyPair(tm.cert, tm.key); err != nil {
			return errs.Invalidf("--tls-cert/--tls-key: %v", err)
		}
	}
	// One daemon per workspace: the lock is held until return, and taken before the token file
	// is written, so a second daemon fails here and leaves the first one's token alone.
	lock, err := web.Lock(ws)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	// Listen first: a port another process holds is STORAGE_BUSY (4), said before anything loads.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return errs.New(errs.Busy, "%s is in use by another process; stop it, or pick another port with --addr (127.0.0.1:0 picks a free one)", addr)
		}
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	defer ln.Close()
	start := time.Now()
	ix, err := board.Load(ctx, ws)
	switch {
	case errs.CodeOf(err) == errs.NotFound:
		// No board yet: tasks, memory and the other tools are served; the board is loaded on
		// the first search after one is imported.
		ix = nil
		fmt.Fprintf(env.Stderr, "cairn serve: no board yet; board searches answer once one is imported with 'cairn board import FILE.json'\n")
	case err != nil:
		return err
	default:
		st := ix.Stats()
		// Stats counts what a search reaches: archived projects and their cards are left out.
		fmt.Fprintf(env.Stderr, "cairn serve: board revision %d: %s, %s, %s to search, loaded in %s\n",
			ix.Revision(), count(st.Projects, "project", "projects"), count(st.Cards, "card", "cards"), count(st.Memory, "memory entry", "memory entries"),
			time.Since(start).Round(time.Millisecond))
	}
	token, err := web.NewToken()
	if err != nil {
		return err
	}
	handler, err := web.New(web.Options{Workspace: ws, Index: ix, Tools: tc, Registry: tools.New(), Token: token, Log: env.Stderr, Addr: ln.Addr().String()})
	if err != nil {
		return err
	}
	defer handler.Close() // after the server stopped: no request reads the stores any more
	tokenPath, err := web.WriteToken(ws, token)
	if err != nil {
		ln.Close()
		return err
	}
	defer func() {
		if err := web.RemoveToken(tokenPath, token); err != nil {
			fmt.Fprintf(env.Stderr, "cairn serve: %s\n", termText(err.Error()))
		}
	}()
	storeURL := tm.store
	if storeURL == "" {
		storeURL = ws.Config.Serve.Store
	}
	teamStore, err := team.OpenStore(ctx, ws, storeURL)
	if err != nil {
		return err
	}
	defer teamStore.Close()
	teamSrv := team.NewServer(teamStore)
	if _, err := teamStore.Key(ctx); err != nil {
		return err
	}
	srv := web.NewServer(addr, web.WithTeam(handler, web.NewTeam(teamSrv, env.Stderr)), log.New(env.Stderr, "cairn serve: ", 0))
	scheme := "http"
	if tm.cert != "" {
		scheme = "https"
	}
	url := fmt.Sprintf("%s://%s/?token=%s", scheme, ln.Addr().String(), token)
	fmt.Fprintf(env.Stderr, "cairn serve: token in %s\n", termName(tokenPath))
	fmt.Fprintf(env.Stderr, "cairn serve: team API at %s://%s%s (members: 'cairn serve member list')\n", scheme, ln.Addr().String(), web.TeamPrefix)
	fmt.Fprintf(env.Stderr, "cairn serve: open %s\n", url)
	done := make(chan error, 1)
	go func() {
		if tm.cert != "" {
			done <- srv.ServeTLS(ln, tm.cert, tm.key)
			return
		}
		done <- srv.Serve(ln)
	}()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve on %s: %w", addr, err)
		}
		return nil
	case <-ctx.Done():
	}
	fmt.Fprintf(env.Stderr, "cairn serve: shutting down\n")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	<-done
	fmt.Fprintf(env.Stderr, "cairn serve: stopped\n")
	return nil
}
