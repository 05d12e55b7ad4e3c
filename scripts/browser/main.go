// Command browser drives the cairn Search page in headless Chromium over the DevTools protocol
// (chromedp): it types a query, checks the highlighted hits, switches scope and source, opens a
// card, presses Esc and S, switches language, and saves a screenshot of each step. It is run by
// scripts/browser-test.sh against a live `cairn serve`; it is a separate module so the product's
// go.mod carries no browser dependency.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	flag.Parse()
	if *url == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: browser -url URL -out DIR [-query Q] [-corrupt FILE]")
		os.Exit(2)
	}
	r := &run{out: *out, query: *query}
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
	r.shot("open")

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
	time.Sleep(300 * time.Millisecond) // the 220 ms fade-in
	r.shot("results")

	// Scope: all projects shows project names; the first-30 footnote appears when truncated.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-scope="all"]`))); err != nil {
		return err
	}
	if err := r.waitFor("project names in all-projects mode", `document.querySelectorAll("#results .card-row .badge.project").length > 0 && !document.querySelector("#results").classList.contains("pending")`); err != nil {
		return err
	}
	if err := r.expect("at most 30 cards, with the footnote when there are more", `(() => { const n = document.querySelectorAll(".card-row").length; const f = document.querySelector(".footnote"); return n <= 30 && (n < 30 || (f && f.textContent === "Showing the first 30 cards")); })()`); err != nil {
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
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#results .hit`))); err != nil {
		return err
	}
	if err := r.waitFor("side panel with the terms marked in the progress section", `!document.querySelector("#drawer").hidden && document.querySelectorAll("#sec-progress mark.term").length > 0`); err != nil {
		return err
	}
	time.Sleep(400 * time.Millisecond) // let the smooth scroll end before the screenshot
	r.shot("card-panel")

	// Esc closes the panel, the results stay; Esc again closes the page; S reopens and focuses.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		return err
	}
	if err := r.waitFor("Esc closes the panel, results stay", `document.querySelector("#drawer").hidden && document.querySelectorAll(".card-row").length > 0 && !document.querySelector("#search-page").hidden`); err != nil {
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
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdpMedia(ctx, t, "reduce")
		return err
	})); err != nil {
		return err
	}
	if err := r.expect("no animation under prefers-reduced-motion", `(() => { const s = getComputedStyle(document.querySelector("#results")); return matchMedia("(prefers-reduced-motion: reduce)").matches && (s.animationName === "none" || s.animationDuration === "0s") && (s.transitionDuration === "0s"); })()`); err != nil {
		return err
	}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdpMedia(ctx, t, "no-preference")
		return err
	})); err != nil {
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

	// Narrow screen.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2))); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond)
	r.shot("mobile")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
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

// cdpMedia emulates prefers-reduced-motion.
func cdpMedia(ctx context.Context, t *chromedp.Target, value string) (cdp.Empty, error) {
	return cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: value}},
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
