// Command browser drives the cairn Search page in headless Chromium over the DevTools protocol
// (chromedp): it types a query, checks the highlighted hits, switches scope and source, opens a
// card, presses Esc and S, switches language, and saves a screenshot of each step. It is run by
// scripts/browser-test.sh against a live `cairn serve`; it is a separate module so the product's
// go.mod carries no browser dependency.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

func main() {
	url := flag.String("url", "", "the page URL printed by cairn serve, with ?token=")
	out := flag.String("out", "", "directory for the screenshots")
	chromium := flag.String("chromium", "/usr/bin/chromium", "Chromium executable")
	query := flag.String("query", "迁移", "a query with hits in several projects and sources")
	corrupt := flag.String("corrupt", "", "board/memory.json of the served workspace: overwritten at the end to check the partial notice")
	axePath := flag.String("axe", "", "axe-core's axe.min.js: checks every state in light and dark for serious or critical findings")
	longURL := flag.String("long-url", "", "URL of a second daemon serving the small board with a 300-character unbroken title")
	longQuery := flag.String("long-query", "overflow", "a query that finds the long-title card on that board")
	longPID := flag.Int("long-pid", 0, "process id of that second daemon: stopped at the end to check the page's answer")
	emptyURL := flag.String("empty-url", "", "URL of a daemon serving a workspace without a board")
	emptyImport := flag.String("empty-import", "", "command line (cairn -C WS board import FILE) that gives that workspace a board, run before Retry")
	flag.Parse()
	if *url == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: browser -url URL -out DIR [-query Q] [-corrupt FILE] [-axe axe.min.js] [-long-url URL -long-pid PID]")
		os.Exit(2)
	}
	r := &run{out: *out, query: *query, media: map[string]string{}}
	if *axePath != "" {
		src, err := os.ReadFile(*axePath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			os.Exit(1)
		}
		r.axeSrc = string(src)
	}
	r.longURL, r.longQuery, r.longPID = *longURL, *longQuery, *longPID
	r.emptyURL, r.emptyImport = *emptyURL, strings.Fields(*emptyImport)
	if err := r.main(*url, *chromium, *corrupt); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Printf("all %d checks passed; screenshots in %s\n", r.checks, r.out)
}

type run struct {
	ctx    context.Context
	out    string
	query  string
	checks int
	shots  int
	axeSrc string
	axeRun int
	media  map[string]string // emulated media features, e.g. prefers-color-scheme: dark
	// the second daemon (see long)
	longURL, longQuery string
	longPID            int
	// a daemon without a board (see noBoard), and the import that gives it one
	emptyURL    string
	emptyImport []string
}

func (r *run) main(url, chromium, corrupt string) error {
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.WindowSize(1280, 900),
	)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	r.ctx = ctx

	// Open: the search box has the focus and the token has left the address bar.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#q"))); err != nil {
		return fmt.Errorf("open the page: %w", err)
	}
	if err := r.waitFor("search box focused on open", `document.activeElement && document.activeElement.id === "q"`); err != nil {
		return err
	}
	if err := r.expect("token removed from the address bar", `!location.search.includes("token") && !location.href.includes("token")`); err != nil {
		return err
	}
	if err := r.waitFor("project chooser filled", `document.querySelectorAll("#project option").length > 0`); err != nil {
		return err
	}
	if err := r.expect("the icon is linked and served", `document.querySelector('link[rel="icon"]') !== null`); err != nil {
		return err
	}
	for _, icon := range []string{"/favicon.ico", "/static/favicon.svg"} {
		if err := r.expectAsync("GET "+icon+" answers 200", `fetch(`+jsString(icon)+`).then(r => r.ok && r.headers.get("Content-Type") === "image/svg+xml")`); err != nil {
			return err
		}
	}

	// Reload (or a bookmark of the address without the token): the tab still has access.
	if err := r.expect("the token is kept for this tab", `!!sessionStorage.getItem("cairn.token")`); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#q"))); err != nil {
		return fmt.Errorf("reload: %w", err)
	}
	if err := r.waitFor("after a reload the projects load again", `document.querySelectorAll("#project option").length > 0 && !document.querySelector(".notice.error")`); err != nil {
		return err
	}
	if err := r.expect("after a reload no token in the address bar", `!location.href.includes("token")`); err != nil {
		return err
	}

	// The empty page teaches: a hint, two example queries from this board, the size of the scope.
	if err := r.waitFor("start page with a hint, two examples and the card count", `(() => { const s = document.querySelector("#start"); return s && !s.hidden && s.querySelector(".start-hint").textContent.includes("#tag") && document.querySelectorAll("#examples [data-example]").length === 2 && /\d+ cards in /.test(document.querySelector("#start-count").textContent); })()`); err != nil {
		return err
	}
	if err := r.expect("one visible h1 on the Search page", `[...document.querySelectorAll("h1")].filter(h => h.getClientRects().length > 0).length === 1 && document.querySelector("#search-page h1").getClientRects().length > 0`); err != nil {
		return err
	}
	if err := r.axe("start page"); err != nil {
		return err
	}
	r.shot("open")
	if err := r.click(`#examples [data-example]`); err != nil {
		return err
	}
	if err := r.waitFor("an example runs its query, with a result count", `(() => { const ex = document.querySelector("#examples [data-example]"); const n = document.querySelectorAll(".card-row").length; const c = document.querySelector("#results .count"); return document.querySelector("#q").value === ex.dataset.example && n > 0 && c && (c.textContent.startsWith(n === 1 ? "1 card" : n + " cards") || c.textContent.startsWith("The first " + n + " of ")) && document.querySelector("#start").hidden && !document.querySelector("#results").classList.contains("pending"); })()`); err != nil {
		return err
	}
	if err := r.setQuery(""); err != nil {
		return err
	}
	if err := r.waitFor("clearing the box brings the start page back", `!document.querySelector("#start").hidden && document.querySelectorAll(".card-row").length === 0`); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#q").focus()`)); err != nil {
		return err
	}

	// Type: after the 250 ms debounce, card rows with highlighted terms in this project only.
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdpInsert(ctx, t, r.query)
		return err
	})); err != nil {
		return err
	}
	if err := r.waitFor("card rows after typing", `document.querySelectorAll(".card-row").length > 0 && !document.querySelector("#results").classList.contains("pending")`); err != nil {
		return err
	}
	fmt.Printf("  results %d ms after the last keystroke (250 ms of it is the debounce)\n", time.Since(start).Milliseconds())
	if err := r.expect("hits are highlighted", `document.querySelectorAll("#results .hl").length > 0`); err != nil {
		return err
	}
	if err := r.expect("highlights hold the query", `[...document.querySelectorAll("#results .hl")].every(e => e.textContent.toLowerCase().includes(`+jsString(strings.ToLower(r.query))+`))`); err != nil {
		return err
	}
	if err := r.expect("no project badge in this-project mode", `document.querySelectorAll("#results .badge.project").length === 0`); err != nil {
		return err
	}
	if err := r.expect("lane badge on every card row", `[...document.querySelectorAll(".card-row")].every(r => r.querySelector(".badge.lane"))`); err != nil {
		return err
	}
	if err := r.expect("the result count matches the rows", `(() => { const n = document.querySelectorAll(".card-row").length; const c = document.querySelector("#results .count").textContent; return c.startsWith(n === 1 ? "1 card" : n + " cards") || c.startsWith("The first " + n + " of "); })()`); err != nil {
		return err
	}
	// One Tab from the box reaches the link to the results, and Enter puts the focus on the first card.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#q").focus()`), chromedp.KeyEvent(kb.Tab)); err != nil {
		return err
	}
	if err := r.expect("Tab from the box reaches the link to the results", `document.activeElement && document.activeElement.id === "to-results" && document.activeElement.getBoundingClientRect().width > 1`); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		return err
	}
	if err := r.waitFor("Enter on it focuses the first card", `document.activeElement === document.querySelector("#results .card-row")`); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#q").focus()`)); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond) // the 220 ms fade-in
	if err := r.axe("results"); err != nil {
		return err
	}
	r.shot("results")

	// Scope: all projects shows project names; the first-30 footnote appears when truncated.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-scope="all"]`))); err != nil {
		return err
	}
	if err := r.waitFor("project names in all-projects mode", `document.querySelectorAll("#results .card-row .badge.project").length > 0 && !document.querySelector("#results").classList.contains("pending")`); err != nil {
		return err
	}
	if err := r.expect("at most 30 cards, with the footnote when there are more", `(() => { const n = document.querySelectorAll(".card-row").length; const f = document.querySelector(".footnote"); return n <= 30 && (n < 30 || (f && /^Showing the first 30 (of \d+ )?cards$/.test(f.textContent))); })()`); err != nil {
		return err
	}
	if err := r.expect("a truncated count says how many of how many", `(() => { const n = document.querySelectorAll(".card-row").length; const c = document.querySelector("#results .count").textContent; const f = document.querySelector(".footnote"); if (!f) return true; const m = /^The first (\d+) of (\d+) cards/.exec(c); return m && Number(m[1]) === n && Number(m[2]) > n; })()`); err != nil {
		return err
	}
	if err := r.expect("the Project menu is disabled in all-projects mode", `document.querySelector("#project").disabled`); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond)
	r.shot("all-projects")

	// Source filter: Summaries only.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-source="summary"]`))); err != nil {
		return err
	}
	if err := r.waitFor("only summary hits", `(() => { const s = [...document.querySelectorAll("#results .hit-source")]; return s.length > 0 && s.every(e => e.textContent === "Summary") && document.querySelector('[data-source="summary"]').getAttribute("aria-pressed") === "true"; })()`); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond)
	r.shot("summaries-only")

	// Open a card from its hit: the side panel scrolls to the summary and marks the terms.
	if err := r.click(`#results .hit`); err != nil {
		return err
	}
	if err := r.waitFor("side panel with the terms marked in the progress section", `!document.querySelector("#drawer").hidden && document.querySelectorAll("#sec-progress mark.term").length > 0`); err != nil {
		return err
	}
	time.Sleep(400 * time.Millisecond) // let the smooth scroll end before the screenshot
	if err := r.dialogChecks(); err != nil {
		return err
	}
	if err := r.axe("card panel"); err != nil {
		return err
	}
	r.shot("card-panel")

	// Esc closes the panel, the results stay, and the focus is back on the row that opened it;
	// Esc again closes the page; S reopens and focuses.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		return err
	}
	if err := r.waitFor("Esc closes the panel, results stay", `document.querySelector("#drawer").hidden && document.querySelectorAll(".card-row").length > 0 && !document.querySelector("#search-page").hidden`); err != nil {
		return err
	}
	if err := r.expect("Esc gives the focus back to the card row", `document.activeElement && document.activeElement.classList.contains("card-row") && !document.querySelector("main").inert`); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		return err
	}
	if err := r.waitFor("Esc closes the Search page", `document.querySelector("#search-page").hidden && !document.querySelector("#home").hidden`); err != nil {
		return err
	}
	r.shot("closed")
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), pressS()); err != nil {
		return err
	}
	if err := r.waitFor("S opens the page and focuses the box", `!document.querySelector("#search-page").hidden && document.activeElement.id === "q"`); err != nil {
		return err
	}
	if err := r.expect("S typed nothing into the box", `document.querySelector("#q").value === `+jsString(r.query)); err != nil {
		return err
	}
	// Esc in a box with text clears it and the page stays; the next Esc would close the page.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		return err
	}
	if err := r.waitFor("Esc in the box clears it first, the page stays open", `document.querySelector("#q").value === "" && !document.querySelector("#search-page").hidden && document.activeElement.id === "q" && !document.querySelector("#start").hidden`); err != nil {
		return err
	}
	if err := r.setQuery(r.query); err != nil {
		return err
	}
	if err := r.waitFor("the query typed again finds its cards", `document.querySelectorAll(".card-row").length > 0 && !document.querySelector("#results").classList.contains("pending")`); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#lang").focus()`), pressS()); err != nil {
		return err
	}
	if err := r.expect("S in a field is not a shortcut", `document.activeElement.id === "lang"`); err != nil {
		return err
	}

	// No results.
	if err := r.setQuery("zzqqxx-nothing"); err != nil {
		return err
	}
	if err := r.waitFor("No results", `(document.querySelector("#results .empty") || {}).textContent === "No results"`); err != nil {
		return err
	}

	// Stale answers are dropped: the last of several quick queries wins.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const q = document.querySelector("#q"); for (const v of ["a", "ab", "zzqqxx", `+jsString(r.query)+`]) { q.value = v; q.dispatchEvent(new Event("input")); } })()`)); err != nil {
		return err
	}
	if err := r.waitFor("the last query's results are shown", `document.querySelectorAll(".card-row").length > 0 && !document.querySelector("#results").classList.contains("pending")`); err != nil {
		return err
	}

	// Reduced motion: no fade-in animation.
	if err := r.setMedia("prefers-reduced-motion", "reduce"); err != nil {
		return err
	}
	if err := r.expect("no animation under prefers-reduced-motion", `(() => { const s = getComputedStyle(document.querySelector("#results")); return matchMedia("(prefers-reduced-motion: reduce)").matches && (s.animationName === "none" || s.animationDuration === "0s") && (s.transitionDuration === "0s"); })()`); err != nil {
		return err
	}
	if err := r.setMedia("prefers-reduced-motion", "no-preference"); err != nil {
		return err
	}

	// Chinese and Japanese strings from the catalogs.
	for _, lang := range []struct{ code, placeholder string }{{"zh", "搜索卡片"}, {"ja", "カード"}} {
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#lang"), lang.code), chromedp.Evaluate[chromedp.Void](`document.querySelector("#lang").dispatchEvent(new Event("change"))`)); err != nil {
			return err
		}
		if err := r.waitFor(lang.code+" strings", `document.querySelector("#q").placeholder.includes(`+jsString(lang.placeholder)+`)`); err != nil {
			return err
		}
		time.Sleep(300 * time.Millisecond)
		r.shot("lang-" + lang.code)
	}
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#lang"), "en"), chromedp.Evaluate[chromedp.Void](`document.querySelector("#lang").dispatchEvent(new Event("change"))`)); err != nil {
		return err
	}

	// Desktop and narrow screen, light and dark: no horizontal overflow, and (with axe) no
	// serious finding in dark either.
	if err := r.setQuery(r.query); err != nil {
		return err
	}
	time.Sleep(400 * time.Millisecond) // past the debounce, so the request below is the new one
	if err := r.waitFor("results again", `document.querySelectorAll(".card-row").length > 0 && !document.querySelector("#results").classList.contains("pending")`); err != nil {
		return err
	}
	if err := r.looks("results"); err != nil {
		return err
	}
	if err := r.setMedia("prefers-color-scheme", "dark"); err != nil {
		return err
	}
	if err := r.axe("results, dark"); err != nil {
		return err
	}
	if err := r.click(`#results .hit`); err != nil {
		return err
	}
	if err := r.waitFor("side panel open in dark", `!document.querySelector("#drawer").hidden && document.querySelector("#drawer-title").textContent !== "Loading…"`); err != nil {
		return err
	}
	time.Sleep(400 * time.Millisecond)
	if err := r.axe("card panel, dark"); err != nil {
		return err
	}
	r.shot("card-panel-dark")
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		return err
	}
	if err := r.setQuery(""); err != nil {
		return err
	}
	if err := r.waitFor("start page again", `!document.querySelector("#start").hidden`); err != nil {
		return err
	}
	if err := r.axe("start page, dark"); err != nil {
		return err
	}
	r.shot("start-dark")
	if err := r.setMedia("prefers-color-scheme", "light"); err != nil {
		return err
	}
	if err := r.setQuery(r.query); err != nil {
		return err
	}
	time.Sleep(400 * time.Millisecond) // past the debounce, so the request below is the new one
	if err := r.waitFor("results again", `document.querySelectorAll(".card-row").length > 0 && !document.querySelector("#results").classList.contains("pending")`); err != nil {
		return err
	}

	// Partial: an unreadable memory file is named at the top and the rest still answers.
	if corrupt != "" {
		// Back to every source (the memory notice only concerns searches that include memory).
		if err := chromedp.Do(r.ctx, chromedp.Click(chromedp.CSS(`[data-source="summary"]`))); err != nil {
			return err
		}
		if err := os.WriteFile(corrupt, []byte("{not json"), 0o644); err != nil {
			return err
		}
		future := time.Now().Add(time.Minute)
		_ = os.Chtimes(corrupt, future, future)
		if err := r.setQuery(r.query + " "); err != nil {
			return err
		}
		if err := r.waitFor("Memory could not be read", `[...document.querySelectorAll(".notice")].some(n => n.textContent === "Memory could not be read") && document.querySelectorAll(".card-row").length > 0`); err != nil {
			return err
		}
		time.Sleep(300 * time.Millisecond)
		r.shot("partial")
	}
	if r.emptyURL != "" {
		if err := r.noBoard(r.emptyURL, r.emptyImport); err != nil {
			return err
		}
	}
	if r.longURL != "" {
		return r.long(r.longURL, r.longQuery, r.longPID)
	}
	return nil
}

// noBoard opens the page of a daemon whose workspace has no board: it says so and how to import
// one (not "Search failed", as nothing was searched), with Retry; after the import, Retry loads
// the projects and the start page.
func (r *run) noBoard(url string, importCmd []string) error {
	if err := chromedp.Do(r.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#q"))); err != nil {
		return fmt.Errorf("open the page of the daemon without a board: %w", err)
	}
	if err := r.waitFor("no board: the page says so and names the import", `(() => { const n = document.querySelector(".notice.error"); return n && n.textContent.includes("No board in this workspace yet") && n.textContent.includes("cairn board import") && !document.body.textContent.includes("Search failed") && n.querySelector(".notice-action"); })()`); err != nil {
		return err
	}
	if err := r.axe("no-board notice"); err != nil {
		return err
	}
	r.shot("no-board")
	if len(importCmd) == 0 {
		return nil
	}
	if out, err := exec.Command(importCmd[0], importCmd[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("import a board for the daemon without one: %v %s", err, out)
	}
	if err := r.click(`.notice-action`); err != nil {
		return err
	}
	return r.waitFor("no board: after an import, Retry loads the projects and the start page", `document.querySelectorAll("#project option").length > 0 && !document.querySelector(".notice.error") && /\d+ cards? in /.test(document.querySelector("#start-count").textContent)`)
}

// dialogChecks: the open side panel holds the focus (Tab and Shift+Tab stay inside, the page
// behind is inert) and shows no run of "Nothing yet" for its empty sections.
func (r *run) dialogChecks() error {
	if err := r.expect("the side panel is a modal dialog with the focus inside", `(() => { const d = document.querySelector("#drawer"); return d.getAttribute("role") === "dialog" && d.getAttribute("aria-modal") === "true" && d.contains(document.activeElement) && document.querySelector("main").inert; })()`); err != nil {
		return err
	}
	for i := 0; i < 6; i++ {
		if err := chromedp.Do(r.ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			return err
		}
		if err := r.expectQuiet(fmt.Sprintf("Tab %d stays in the side panel", i+1), `document.querySelector("#drawer").contains(document.activeElement)`); err != nil {
			return err
		}
	}
	for i := 0; i < 6; i++ {
		if err := chromedp.Do(r.ctx, chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift))); err != nil {
			return err
		}
		if err := r.expectQuiet(fmt.Sprintf("Shift+Tab %d stays in the side panel", i+1), `document.querySelector("#drawer").contains(document.activeElement)`); err != nil {
			return err
		}
	}
	r.checks++
	fmt.Println("  ok   Tab and Shift+Tab keep the focus in the side panel")
	return r.expect("empty sections collapsed into at most one line", `(() => { const b = document.querySelector("#drawer-body"); const n = (b.textContent.match(/Nothing yet/g) || []).length; return n <= 1 && [...b.querySelectorAll(".section")].every(s => s.children.length > 1); })()`)
}

// looks takes the four screenshots (1280×900 and 390×844, light and dark) of what is on the
// page and checks each for horizontal overflow.
func (r *run) looks(name string) error {
	defer func() { _ = r.setMedia("prefers-color-scheme", "light") }()
	for _, v := range []struct {
		w, h  int64
		tag   string
		scale float64
	}{{1280, 900, "desktop", 1}, {390, 844, "mobile", 2}} {
		if err := chromedp.Do(r.ctx, chromedp.EmulateViewport(v.w, v.h, chromedp.EmulateScale(v.scale))); err != nil {
			return err
		}
		for _, scheme := range []string{"light", "dark"} {
			if err := r.setMedia("prefers-color-scheme", scheme); err != nil {
				return err
			}
			time.Sleep(300 * time.Millisecond)
			if err := r.noOverflow(fmt.Sprintf("%s at %d×%d, %s", name, v.w, v.h, scheme)); err != nil {
				return err
			}
			r.shot(fmt.Sprintf("%s-%s-%s", name, v.tag, scheme))
		}
	}
	return chromedp.Do(r.ctx, chromedp.EmulateViewport(1280, 900))
}

// noOverflow fails when the page scrolls sideways or an element sticks out of the viewport.
func (r *run) noOverflow(what string) error {
	bad, err := chromedp.Run(r.ctx, chromedp.Evaluate[string](`(() => {
		const w = document.documentElement.clientWidth;
		const out = [];
		if (document.documentElement.scrollWidth > w) out.push("page is " + document.documentElement.scrollWidth + " px wide");
		for (const e of document.querySelectorAll("body *")) {
			if (!e.getClientRects().length || e.closest(".visually-hidden")) continue;
			const b = e.getBoundingClientRect();
			if (b.right > w + 1 || b.left < -1) out.push((e.id ? "#" + e.id : e.tagName.toLowerCase() + "." + e.className) + " spans " + Math.round(b.left) + "–" + Math.round(b.right) + " px");
			if (out.length >= 5) break;
		}
		return out.join("; ");
	})()`))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if bad != "" {
		r.shot("failed")
		return fmt.Errorf("horizontal overflow, %s: %s", what, bad)
	}
	r.checks++
	fmt.Println("  ok   no horizontal overflow,", what)
	return nil
}

// axe runs axe-core on the page as it is and fails on any serious or critical finding.
func (r *run) axe(what string) error {
	if r.axeSrc == "" {
		return nil
	}
	if err := chromedp.Do(r.ctx, chromedp.Evaluate[chromedp.Void](`window.axe ? undefined : (0, eval)(`+jsString(r.axeSrc)+`)`)); err != nil {
		return fmt.Errorf("inject axe-core: %w", err)
	}
	time.Sleep(250 * time.Millisecond) // let fades and slides end: axe reads the colours as shown
	res, err := chromedp.Run(r.ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(res => JSON.stringify(res.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + " — " + (n.failureSummary || "").replace(/\s+/g, " "))}))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Errorf("axe-core on %s: %w", what, err)
	}
	var found []struct {
		ID, Impact string
		Nodes      []string
	}
	if err := json.Unmarshal([]byte(res), &found); err != nil {
		return fmt.Errorf("axe-core on %s: %w", what, err)
	}
	r.axeRun++
	var bad, other []string
	for _, v := range found {
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, fmt.Sprintf("%s (%s): %s", v.ID, v.Impact, strings.Join(v.Nodes, " | ")))
		} else {
			other = append(other, v.ID+" ("+v.Impact+")")
		}
	}
	if len(bad) > 0 {
		r.shot("failed")
		return fmt.Errorf("axe-core on %s: %s", what, strings.Join(bad, "\n  "))
	}
	r.checks++
	note := ""
	if len(other) > 0 {
		note = "; minor or moderate: " + strings.Join(other, ", ")
	}
	fmt.Printf("  ok   axe-core: no serious or critical finding on the %s%s\n", what, note)
	return nil
}

// setMedia emulates one media feature and keeps the others set before.
func (r *run) setMedia(name, value string) error {
	r.media[name] = value
	var fs []*emulation.MediaFeature
	for n, v := range r.media {
		fs = append(fs, &emulation.MediaFeature{Name: n, Value: v})
	}
	return chromedp.Do(r.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: fs})
		return err
	}))
}

// long runs on a second daemon serving a small board whose card has a 300-character unbroken
// title and snippet and no other records: nothing overflows at 390 px, the side panel names its
// empty sections once, and when that daemon stops the page says so instead of "Failed to fetch".
func (r *run) long(url, query string, pid int) error {
	ctx := r.ctx
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS("#q"))); err != nil {
		return fmt.Errorf("open the second daemon's page: %w", err)
	}
	if err := r.waitFor("second daemon: projects loaded with its own token", `document.querySelectorAll("#project option").length > 0 && !document.querySelector(".notice.error")`); err != nil {
		return err
	}
	if err := r.setQuery(query); err != nil {
		return err
	}
	if err := r.waitFor("the long-title card is found", `[...document.querySelectorAll(".card-title")].some(e => e.textContent.length >= 300) && !document.querySelector("#results").classList.contains("pending")`); err != nil {
		return err
	}
	if err := r.looks("long-title"); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2))); err != nil {
		return err
	}
	if err := r.axe("long-title results"); err != nil {
		return err
	}
	if err := r.click(`#results .card-row`); err != nil {
		return err
	}
	if err := r.waitFor("side panel of the long-title card", `!document.querySelector("#drawer").hidden && document.querySelector("#drawer-title").textContent.length >= 300`); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond)
	if err := r.noOverflow("side panel at 390×844"); err != nil {
		return err
	}
	if err := r.expect("one line names the empty sections", `(() => { const b = document.querySelector("#drawer-body"); return (b.textContent.match(/Nothing yet/g) || []).length === 1 && b.querySelectorAll(".section").length === 1 && /Progress · Activity · Workpad · Ideas · Deliverables/.test(b.querySelector(".empty-sections").textContent); })()`); err != nil {
		return err
	}
	if err := r.dialogChecks(); err != nil {
		return err
	}
	if err := r.axe("long-title card panel"); err != nil {
		return err
	}
	r.shot("long-title-panel")
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		return err
	}
	if err := r.folded(); err != nil {
		return err
	}
	if pid <= 0 {
		return nil
	}

	// Load the zh and ja catalogs while the daemon still answers (the page keeps them).
	for _, code := range []string{"zh", "ja", "en"} {
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#lang"), code), chromedp.Evaluate[chromedp.Void](`document.querySelector("#lang").dispatchEvent(new Event("change"))`)); err != nil {
			return err
		}
		if err := r.waitFor("language "+code+" loaded", `document.documentElement.lang.startsWith(`+jsString(code)+`)`); err != nil {
			return err
		}
	}

	// The daemon stops: the next search says cairn serve is not reachable and dims the results.
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop the second daemon: %w", err)
	}
	gone, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(async () => { for (let i = 0; i < 100; i++) { try { await fetch("/favicon.ico", {cache: "no-store"}); } catch (_) { return true; } await new Promise(r => setTimeout(r, 50)); } return false; })()`, chromedp.EvalAwaitPromise))
	if err != nil || !gone {
		return fmt.Errorf("the second daemon did not stop: %v", err)
	}
	if err := r.setQuery(query + " "); err != nil {
		return err
	}
	if err := r.waitFor("stopped daemon: the page says cairn serve is not reachable", `(() => { const n = document.querySelector(".notice.error"); return n && n.textContent.includes("cairn serve is not reachable") && !document.body.textContent.includes("Failed to fetch"); })()`); err != nil {
		return err
	}
	if err := r.waitFor("stopped daemon: the old results are dimmed and out of reach", `(() => { const res = document.querySelector("#results"); return res.classList.contains("stale") && res.inert && Number(getComputedStyle(res).opacity) < 0.5; })()`); err != nil {
		return err
	}
	if err := r.axe("unreachable notice"); err != nil {
		return err
	}
	r.shot("unreachable")
	for _, lang := range []struct{ code, text string }{{"zh", "无法连接 cairn serve"}, {"ja", "cairn serve に接続できません"}, {"en", "cairn serve is not reachable"}} {
		// The catalogs were loaded while the daemon ran; Retry names the problem in the new language.
		if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#lang"), lang.code), chromedp.Evaluate[chromedp.Void](`document.querySelector("#lang").dispatchEvent(new Event("change"))`)); err != nil {
			return err
		}
		if err := r.waitFor("stopped daemon: the notice follows the language to "+lang.code, `document.documentElement.lang.startsWith(`+jsString(lang.code)+`) && document.querySelector(".notice.error").textContent.includes(`+jsString(lang.text)+`)`); err != nil {
			return err
		}
		if err := r.click(`.notice-action`); err != nil {
			return err
		}
		if err := r.waitFor("stopped daemon: Retry says it in "+lang.code, `(() => { const n = document.querySelector(".notice.error"); return n && n.textContent.includes(`+jsString(lang.text)+`) && !document.body.textContent.includes("Failed to fetch"); })()`); err != nil {
			return err
		}
		if lang.code == "zh" {
			r.shot("unreachable-zh")
		}
	}
	return nil
}

// folded searches "strasse file" on the small board: the card holding Straße and ﬁle is found,
// its hits mark them, and its side panel marks them where the server says (the page folds
// nothing itself), leaving the text as written.
func (r *run) folded() error {
	if err := r.setQuery("strasse file"); err != nil {
		return err
	}
	if err := r.waitFor("strasse file finds the Straße ﬁle card with the words in bold", `(() => { const row = document.querySelector('#results .card-row[data-task="c3"]'); if (!row || document.querySelector("#results").classList.contains("pending")) return false; const hl = [...row.querySelectorAll(".hl")].map(e => e.textContent); return hl.includes("Straße") && hl.includes("ﬁle"); })()`); err != nil {
		return err
	}
	if err := r.click(`#results .card-row[data-task="c3"]`); err != nil {
		return err
	}
	if err := r.waitFor("the card panel marks Straße and ﬁle in the title and description", `(() => {
		const marks = (sel) => [...document.querySelectorAll(sel + " mark.term")].map(e => e.textContent).join("|");
		const desc = document.querySelector("#card-description");
		return !document.querySelector("#drawer").hidden && marks("#drawer-title") === "Straße|ﬁle" && marks("#card-description") === "ﬁle|STRASSE" &&
			desc && desc.textContent === "Read the ﬁle list from the STRASSE table" && document.querySelector("#drawer-title").textContent === "Straße ﬁle cleanup";
	})()`); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond) // let the panel finish sliding in before the screenshot
	r.shot("folded-panel")
	if err := chromedp.Do(r.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		return err
	}
	return r.waitFor("Esc closes the folded card's panel", `document.querySelector("#drawer").hidden`)
}

// click clicks the first element matching sel, waiting at most 5 s for it.
func (r *run) click(sel string) error {
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		r.shot("failed")
		return fmt.Errorf("click %s: %w", sel, err)
	}
	return nil
}

// setQuery replaces the search text and fires the input event as typing does.
func (r *run) setQuery(q string) error {
	return chromedp.Do(r.ctx, chromedp.Evaluate[chromedp.Void](`(() => { const q = document.querySelector("#q"); q.value = `+jsString(q)+`; q.dispatchEvent(new Event("input")); })()`))
}

// waitFor polls a predicate for up to 5 s and counts a passed check.
func (r *run) waitFor(what, predicate string) error {
	ctx, cancel := context.WithTimeout(r.ctx, 6*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(5*time.Second), chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		r.shot("failed")
		return fmt.Errorf("%s: %w", what, err)
	}
	r.checks++
	fmt.Println("  ok  ", what)
	return nil
}

// expectAsync evaluates a predicate that returns a promise.
func (r *run) expectAsync(what, predicate string) error {
	ok, err := chromedp.Run(r.ctx, chromedp.Evaluate[bool](predicate, chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !ok {
		return errors.New(what)
	}
	r.checks++
	fmt.Println("  ok  ", what)
	return nil
}

// expectQuiet is expect without counting or printing a passed check (for loops).
func (r *run) expectQuiet(what, predicate string) error {
	ok, err := chromedp.Run(r.ctx, chromedp.Evaluate[bool](predicate))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !ok {
		r.shot("failed")
		return errors.New(what)
	}
	return nil
}

// expect evaluates a predicate once.
func (r *run) expect(what, predicate string) error {
	ok, err := chromedp.Run(r.ctx, chromedp.Evaluate[bool](predicate))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !ok {
		r.shot("failed")
		return errors.New(what)
	}
	r.checks++
	fmt.Println("  ok  ", what)
	return nil
}

// shot saves a screenshot of the viewport as NN-name.png.
func (r *run) shot(name string) {
	r.shots++
	buf, err := chromedp.Run(r.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		fmt.Fprintf(os.Stderr, "screenshot %s: %v\n", name, err)
		return
	}
	path := filepath.Join(r.out, fmt.Sprintf("%02d-%s.png", r.shots, name))
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "screenshot %s: %v\n", name, err)
	}
}

// cdpInsert types text into the focused element as an input method would, so Chinese and
// Japanese queries arrive as one input event each.
func cdpInsert(ctx context.Context, t *chromedp.Target, text string) (cdp.Empty, error) {
	return cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
}

// pressS types the S key as a keyboard does: one keyDown that carries its text (so a handled
// keydown suppresses the character, as in a real browser) and a keyUp.
func pressS() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "s", Code: "KeyS", Text: "s", UnmodifiedText: "s", WindowsVirtualKeyCode: 83, NativeVirtualKeyCode: 83}
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down); err != nil {
			return err
		}
		up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: "s", Code: "KeyS", WindowsVirtualKeyCode: 83, NativeVirtualKeyCode: 83}
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, up)
		return err
	})
}

func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
