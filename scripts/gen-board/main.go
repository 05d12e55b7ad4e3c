// Command gen-board writes a synthetic board (docs/formats.md) for benchmarks and demos: scale 1
// is about the size of a real team's board (500 cards, 5,000 events), scale 10 ten times that. The same
// -seed and -scale always give the same bytes.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/cairn-dev/cairn/scripts/gen-board/boardgen"
)

func main() {
	scale := flag.Int("scale", 1, "board size: 1 ≈ 500 cards and 5,000 events; 10 ≈ 5,000 cards and 50,000 events")
	seed := flag.Uint64("seed", 1, "random seed; the same seed and scale give the same file")
	out := flag.String("o", "-", "output file, - for standard output")
	flag.Parse()
	if *scale < 1 || *scale > 1000 {
		fmt.Fprintln(os.Stderr, "gen-board: -scale must be 1..1000")
		os.Exit(2)
	}
	if err := run(*scale, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-board:", err)
		os.Exit(1)
	}
}

func run(scale int, seed uint64, out string) error {
	if out == "-" {
		w := bufio.NewWriter(os.Stdout)
		if err := boardgen.Write(w, scale, seed); err != nil {
			return err
		}
		return w.Flush()
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	if err := boardgen.Write(f, scale, seed); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
