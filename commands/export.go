package commands

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/core/errs"
	"github.com/cairn-dev/cairn/core/workspace"
)

// exportAction is the action of an export (what: "board export"): no arguments, the document
// that export writes sent to --output or standard output and, for a file, what it held in text
// or JSON.
func exportAction[R any](env *Env, what string, export func(context.Context, *workspace.Workspace, io.Writer) (R, error), text func(w io.Writer, res R, out string)) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() != 0 {
			return errs.Invalidf("%s takes no arguments (write to a file with --output FILE), got %d", what, c.NArg())
		}
		ws, err := env.Workspace()
		if err != nil {
			return err
		}
		out := c.String("output")
		var res R
		err = env.writeOutput(out, func(w io.Writer) error {
			var err error
			res, err = export(c.Context, ws, w)
			return err
		})
		if err != nil || out == "" || out == "-" {
			return err
		}
		return env.Render(res, func(w io.Writer) error {
			text(w, res, out)
			return nil
		})
	}
}

// writeOutput runs write into the file path, written atomically (a temporary file beside it,
// synced, then renamed over it: a failed export leaves the old file as it was), or into standard
// output when path is "" or "-".
func (e *Env) writeOutput(path string, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		bw := bufio.NewWriter(e.Stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errs.Invalidf("--output %s is a directory; name a file", termName(path))
	}
	// a FIFO, a device node (/dev/null, /dev/full) or a dangling symlink is refused and left as
	// it is: the rename would replace it with a regular file
	if err := workspace.CheckWritable(path, "--output"); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		return errs.Invalidf("--output %s: the directory %s does not exist; create it first", termName(path), termName(dir))
	}
	if err != nil {
		return workspace.FSError(err, "write %s", path)
	}
	name := tmp.Name()
	defer os.Remove(name) // a no-op once renamed
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err := write(bw); err != nil {
		tmp.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return workspace.FSError(err, "write %s", path)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return workspace.FSError(err, "write %s", path)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return workspace.FSError(err, "write %s", path)
	}
	if err := tmp.Close(); err != nil {
		return workspace.FSError(err, "write %s", path)
	}
	if err := workspace.CheckWritable(path, "--output"); err != nil {
		return err // it became a special file while the export ran
	}
	if err := os.Rename(name, path); err != nil {
		return workspace.FSError(err, "write %s", path)
	}
	return nil
}

// printSchema writes an embedded JSON Schema to standard output.
func (e *Env) printSchema(schema []byte) error {
	_, err := e.Stdout.Write(schema)
	if err != nil {
		return fmt.Errorf("write schema: %w", err)
	}
	return nil
}
