// Package web is the HTTP face of cairn serve (docs/tour.md, "The board daemon and Search page"): POST /api runs the
// board search on an in-memory index and every tool of the registry, and GET / serves the Search
// page from files embedded in the binary. It holds no command-line code; commands/serve.go wires
// it to a listener.
package web
