package web

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
)

// staticFiles is the Search page: plain HTML, CSS, JavaScript and the string catalogs, built
// into the binary so cairn serve needs no files beside it and no Node build step.
//
//go:embed static
var staticFiles embed.FS

// pageCSP keeps the page to its own files: no inline script, no third-party origin, no framing.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// staticHandler serves GET / (index.html), /favicon.ico and /static/... from the embedded files.
func staticHandler() (http.Handler, error) {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("embedded page: %w", err)
	}
	files := http.StripPrefix("/static/", http.FileServerFS(sub))
	index, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		return nil, fmt.Errorf("embedded page: %w", err)
	}
	icon, err := fs.ReadFile(sub, "favicon.svg")
	if err != nil {
		return nil, fmt.Errorf("embedded page: %w", err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP)
		// The page URL carries the token once; no referrer may repeat it to another origin.
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		switch {
		case r.URL.Path == "/" || r.URL.Path == "/index.html":
			h.Set("Content-Type", "text/html; charset=utf-8")
			h.Set("Cache-Control", "no-store")
			_, _ = w.Write(index)
		case r.URL.Path == "/favicon.ico":
			// Browsers ask for it whatever the page links; answer with the page's icon, not a 404.
			h.Set("Content-Type", "image/svg+xml")
			h.Set("Cache-Control", "max-age=86400")
			_, _ = w.Write(icon)
		case len(r.URL.Path) > len("/static/") && r.URL.Path[:len("/static/")] == "/static/":
			h.Set("Cache-Control", "no-cache")
			files.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	}), nil
}
