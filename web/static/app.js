// cairn Search page: plain JavaScript, no build step. Talks to POST /api only.
"use strict";
(() => {
  const SOURCES = ["card", "summary", "note", "workpad", "idea", "artifact", "memory"];
  const LANGS = ["en", "zh", "ja"];
  const DEBOUNCE_MS = 250;
  const DEFAULT_LIMIT = 30;

  // The token comes from the URL once (the address cairn serve prints), is kept in this tab's
  // sessionStorage — per origin, so per daemon port — and leaves the address bar, so a reload
  // keeps working and the address can be bookmarked or shared without the secret.
  const TOKEN_KEY = "cairn.token";
  const params = new URLSearchParams(location.search);
  let token = params.get("token") || "";
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else token = sessionStorage.getItem(TOKEN_KEY) || "";
  } catch (_) {
    // Storage refused (a privacy mode): the token lives in this page only.
  }
  if (params.has("token")) {
    params.delete("token");
    history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : "") + location.hash);
  }
  function forgetToken() {
    try {
      sessionStorage.removeItem(TOKEN_KEY);
    } catch (_) {
      // nothing stored
    }
  }

  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

  const state = {
    strings: {},
    fallback: {},
    lang: "en",
    projects: [],
    project: params.get("project") || null,
    scope: "project",
    sources: new Set(),
    query: "",
    seq: 0,
    controller: null,
    timer: 0,
    last: null, // {result, input} of the newest answer shown
    searchOpen: false,
    drawer: null, // {taskId, hit}
    drawerSeq: 0,
    opener: null, // the element that had the focus when the side panel opened
    examples: {}, // project id ("" = all projects) → example queries
    lastError: null, // the failure shown in the notices, until an answer arrives
  };

  // ---- strings -------------------------------------------------------------------------------
  function t(key, vars) {
    let s = state.strings[key] || state.fallback[key] || key;
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
    return s;
  }
  const catalogs = {}; // kept, so a language loaded once still switches when the daemon is gone
  async function loadCatalog(lang) {
    if (catalogs[lang]) return catalogs[lang];
    let resp;
    try {
      resp = await fetch("/static/i18n/" + lang + ".json");
    } catch (err) {
      throw new APIError(0, "UNREACHABLE", String(err.message || err));
    }
    if (!resp.ok) throw new Error("catalog " + lang + ": " + resp.status);
    catalogs[lang] = await resp.json();
    return catalogs[lang];
  }
  function pickLanguage() {
    for (const l of navigator.languages || [navigator.language || "en"]) {
      const base = String(l).toLowerCase().split("-")[0];
      if (LANGS.includes(base)) return base;
    }
    return "en";
  }
  async function setLanguage(lang) {
    state.lang = lang;
    state.strings = lang === "en" ? state.fallback : await loadCatalog(lang);
    document.documentElement.lang = lang === "zh" ? "zh-CN" : lang;
    $("#lang").value = lang;
    for (const el of $$("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    for (const el of $$("[data-i18n-label]")) {
      el.setAttribute("aria-label", t(el.dataset.i18nLabel));
      el.title = t(el.dataset.i18nLabel);
    }
    for (const el of $$("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
    document.title = "cairn — " + t("app.title");
    renderHomeStats();
    renderStart();
    if (state.last) render(state.last.result, state.last.input, false);
    if (state.lastError) showError(state.lastError); // say it again, in the new language
    if (state.drawer && state.drawer.data) renderDrawer(state.drawer.data, state.drawer.hit, false);
  }

  // ---- API -----------------------------------------------------------------------------------
  class APIError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }
  async function api(action, input, signal) {
    let resp;
    try {
      resp = await fetch("/api", {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "Bearer " + token },
        body: JSON.stringify({ action, input }),
        signal,
      });
    } catch (err) {
      if (err.name === "AbortError") throw err;
      // No answer at all: the daemon stopped (or the network between went away).
      throw new APIError(0, "UNREACHABLE", String(err.message || err));
    }
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok) {
      const e = body.error || {};
      throw new APIError(resp.status, e.code || "INTERNAL", e.message || resp.statusText);
    }
    return body;
  }

  // ---- text helpers --------------------------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  // highlighted renders text with ranges ([start, end) in UTF-16 units) in bold accent.
  function highlighted(text, ranges, cls = "snippet") {
    const span = el("span", cls);
    const rs = (ranges || []).map((r) => [r[0], r[1]]).sort((a, b) => a[0] - b[0]);
    let pos = 0;
    for (const [s0, e0] of rs) {
      const s = Math.max(s0, pos);
      const e = Math.min(e0, text.length);
      if (e <= s) continue;
      if (s > pos) span.append(text.slice(pos, s));
      span.append(el("strong", "hl", text.slice(s, e)));
      pos = e;
    }
    if (pos < text.length) span.append(text.slice(pos));
    return span;
  }
  // marked fills e with text as text nodes, the server's ranges ([start, end) in UTF-16 units,
  // sorted, not overlapping) in <mark class="term">; the page never matches or folds text itself.
  function marked(e, text, ranges) {
    let pos = 0;
    for (const [s0, e0] of ranges || []) {
      const s = Math.max(s0, pos);
      const end = Math.min(e0, text.length);
      if (end <= s) continue;
      if (s > pos) e.append(document.createTextNode(text.slice(pos, s)));
      e.append(el("mark", "term", text.slice(s, end)));
      pos = end;
    }
    if (pos < text.length) e.append(document.createTextNode(text.slice(pos)));
    return e;
  }
  // highlightsOf indexes a card answer's highlights by source, record, field and tag position.
  function highlightsOf(data) {
    const m = new Map();
    for (const h of data.highlights || []) m.set([h.source, h.refId || "", h.field, h.index ?? ""].join("\u0000"), h.ranges);
    return (source, ref, field, index) => m.get([source, ref || "", field, index ?? ""].join("\u0000"));
  }
  function formatTime(iso) {
    if (!iso) return "";
    const d = new Date(iso);
    if (isNaN(d)) return iso;
    return d.toLocaleString(state.lang === "zh" ? "zh-CN" : state.lang, { dateStyle: "medium", timeStyle: "short" });
  }

  // ---- notices -------------------------------------------------------------------------------
  // showNotices takes [text, class, action?] rows; action is {label, run} for a button.
  function showNotices(list) {
    const box = $("#notices");
    box.replaceChildren(...list.map(([text, cls, action]) => {
      const n = el("div", "notice" + (cls ? " " + cls : ""));
      n.append(el("span", null, text));
      if (action) {
        const b = el("button", "notice-action", action.label);
        b.type = "button";
        b.addEventListener("click", action.run);
        n.append(b);
      }
      return n;
    }));
  }
  function errorText(err) {
    if (err.status === 401 || !token) return t("error.token");
    if (err.status === 0) return t("error.offline");
    if (noBoard(err)) return t("error.noBoard");
    return t("error.failed", { message: err.message });
  }
  // noBoard: the projects could not be listed because the workspace has no board yet (the
  // daemon runs without one and answers once a board is imported): nothing was searched.
  function noBoard(err) {
    return err.status === 404 && !state.projects.length;
  }
  function showError(err) {
    state.lastError = err;
    if (err.status === 401) forgetToken();
    if (err.status === 0 || noBoard(err)) {
      // The results on screen may be out of date: dim them and take them out of reach until
      // an answer arrives again.
      if (err.status === 0) setStale(true);
      showNotices([[errorText(err), "error", { label: t("error.retry"), run: () => retry() }]]);
      return;
    }
    showNotices([[errorText(err), "error"]]);
  }
  function setStale(on) {
    const results = $("#results");
    results.classList.toggle("stale", on);
    results.inert = on;
  }
  async function retry() {
    if (!state.projects.length) await loadProjects();
    else runSearch();
  }

  // ---- search --------------------------------------------------------------------------------
  function currentInput() {
    const input = { query: state.query, projectId: state.scope === "all" ? null : state.project };
    if (state.sources.size) input.sources = SOURCES.filter((s) => state.sources.has(s));
    return input;
  }
  function scheduleSearch() {
    clearTimeout(state.timer);
    state.timer = setTimeout(runSearch, DEBOUNCE_MS);
  }
  async function runSearch() {
    clearTimeout(state.timer);
    if (state.controller) state.controller.abort();
    const seq = ++state.seq;
    const results = $("#results");
    if (!state.query.trim()) {
      state.last = null;
      results.classList.remove("pending");
      setStale(false);
      results.replaceChildren();
      $("#to-results").hidden = true;
      state.lastError = null;
      showNotices([]);
      renderStart();
      return;
    }
    $("#start").hidden = true;
    const input = currentInput();
    const controller = new AbortController();
    state.controller = controller;
    results.classList.add("pending");
    try {
      const result = await api("search", input, controller.signal);
      if (seq !== state.seq) return; // a newer request was sent: this answer is stale
      state.lastError = null;
      state.last = { result, input };
      render(result, input, true);
    } catch (err) {
      if (seq !== state.seq || err.name === "AbortError") return;
      results.classList.remove("pending");
      showError(err);
    }
  }

  // plural picks key.one or key.other for n and fills {n}.
  function plural(key, n) {
    return t(key + (n === 1 ? ".one" : ".other"), { n });
  }
  function render(result, input, animate) {
    const results = $("#results");
    results.classList.remove("pending");
    setStale(false);
    $("#start").hidden = true;
    const notices = [];
    for (const p of result.partial || []) notices.push([t("partial." + p)]);
    showNotices(notices);
    const nodes = [];
    const allProjects = input.projectId === null;
    if (!result.cards.length && !result.memory.length) {
      nodes.push(el("div", "empty", t("results.none")));
    } else {
      // truncated: the count says how many of how many ("The first 30 of 46 cards")
      const parts = [result.truncated && result.total > result.cards.length
        ? t("results.firstOf", { n: result.cards.length, total: result.total })
        : plural("results.cards", result.cards.length)];
      if (result.memory.length) parts.push(plural("results.memoryCount", result.memory.length));
      nodes.push(el("div", "count", parts.join(" · ")));
    }
    for (const card of result.cards) nodes.push(cardRow(card, allProjects));
    const limit = input.limit || DEFAULT_LIMIT;
    if (result.truncated && result.cards.length >= limit) {
      nodes.push(el("div", "footnote", result.total > result.cards.length
        ? t("results.truncatedOf", { n: limit, total: result.total })
        : t("results.truncated", { n: limit })));
    }
    if (result.memory.length) {
      nodes.push(el("h2", "group-title", t("results.memory")));
      for (const m of result.memory) nodes.push(memoryRow(m, allProjects));
    }
    results.replaceChildren(...nodes);
    $("#to-results").hidden = !result.cards.length; // one Tab from the box to the first card
    if (animate && !reducedMotion.matches) {
      results.classList.remove("enter");
      void results.offsetWidth; // restart the animation
      results.classList.add("enter");
    }
  }

  function cardRow(card, allProjects) {
    const row = el("article", "card-row");
    row.tabIndex = 0;
    row.dataset.task = card.taskId;
    const head = el("div", "card-head");
    const titleHit = card.hits.find((h) => h.source === "card" && h.field === "title");
    head.append(titleHit ? highlighted(card.title, titleHit.ranges, "card-title") : el("span", "card-title", card.title));
    head.append(el("span", "badge lane", card.status));
    if (card.type) head.append(el("span", "badge", card.type));
    if (allProjects) head.append(el("span", "badge project", card.projectTitle));
    if (card.archived) head.append(el("span", "badge archived", t("card.archived")));
    row.append(head);
    const hits = card.hits.filter((h) => h !== titleHit);
    if (hits.length) {
      const ul = el("ul", "hits");
      hits.forEach((h) => {
        const li = el("li", "hit");
        li.dataset.hit = String(card.hits.indexOf(h));
        const label = el("span", "hit-source", t("hit." + h.source));
        if (h.source === "card") label.textContent = t("hit.card") + " · " + t("field." + h.field);
        li.append(label);
        const body = el("span");
        if (h.status) body.append(el("span", "hit-status", t("idea." + h.status) + " · "));
        body.append(highlighted(h.snippet, h.ranges));
        li.append(body);
        ul.append(li);
      });
      row.append(ul);
    }
    row._card = card;
    return row;
  }

  function memoryRow(m, allProjects) {
    const row = el("div", "memory-row");
    const head = el("div", "card-head");
    head.append(el("span", "card-title", m.title));
    head.append(el("span", "badge", m.kind));
    if (allProjects) {
      const p = state.projects.find((x) => x.id === m.projectId);
      head.append(el("span", "badge project", p ? p.title : m.projectId));
    }
    row.append(head, highlighted(m.snippet, m.ranges));
    return row;
  }

  // ---- side panel ----------------------------------------------------------------------------
  // The side panel is a modal dialog: the page behind it is inert, the focus moves in and Tab
  // cycles inside it; Esc or Close gives the focus back to the row that opened it.
  function setModal(on) {
    $("header.top").inert = on;
    $("main").inert = on;
    $("#drawer").setAttribute("aria-modal", String(on));
  }
  function focusables(root) {
    return $$("a[href], button, input, select, textarea, [tabindex]", root).filter(
      (x) => x.tabIndex >= 0 && !x.disabled && x.getClientRects().length > 0);
  }
  async function openDrawer(taskId, hit) {
    const seq = ++state.drawerSeq;
    if (!state.drawer) state.opener = document.activeElement;
    state.drawer = { taskId, hit, data: null };
    $("#drawer-title").textContent = t("panel.loading");
    $("#drawer-body").replaceChildren();
    $("#drawer").hidden = false;
    $("#scrim").hidden = false;
    setModal(true);
    $("#drawer-close").focus();
    try {
      // The query the card was found by: the answer says where its terms occur, to mark them.
      const query = (state.last ? state.last.input.query : state.query).trim();
      const data = await api("card", query ? { taskId, query } : { taskId });
      if (seq !== state.drawerSeq || !state.drawer) return;
      state.drawer.data = data;
      renderDrawer(data, hit, true);
    } catch (err) {
      if (seq !== state.drawerSeq) return;
      $("#drawer-title").textContent = "";
      $("#drawer-body").replaceChildren(el("div", "notice error", err.status === 0 || err.status === 401 ? errorText(err) : err.message));
    }
  }
  function closeDrawer() {
    if (!state.drawer) return false;
    const taskId = state.drawer.taskId;
    state.drawer = null;
    state.drawerSeq++;
    $("#drawer").hidden = true;
    $("#scrim").hidden = true;
    setModal(false);
    const opener = state.opener;
    state.opener = null;
    const row = $$(".card-row").find((r) => r.dataset.task === taskId);
    if (row) row.focus({ preventScroll: true });
    else if (opener && opener.isConnected && opener !== document.body) opener.focus({ preventScroll: true });
    else if (state.searchOpen) $("#q").focus();
    return true;
  }

  // section returns the panel section, or null when it has nothing to show (the empty ones are
  // named together in one line instead of five "Nothing yet").
  function section(key, id, children) {
    if (!children.length) return null;
    const s = el("section", "section");
    s.id = id;
    s.append(el("h3", null, t(key)));
    s.append(...children);
    return s;
  }
  // kv lists [label, value, ranges] rows that have a value, the ranges marked in the value.
  function kv(pairs, mono) {
    const dl = el("dl", "kv");
    for (const [k, v, ranges] of pairs) {
      if (!v) continue;
      dl.append(el("dt", null, k), marked(el("dd", mono ? "code" : null), v, ranges));
    }
    return dl;
  }
  function item(ref, headParts, ...body) {
    const d = el("div", "item");
    d.dataset.ref = ref;
    const head = el("div", "item-head");
    for (const p of headParts) if (p) head.append(p);
    d.append(head, ...body);
    return d;
  }
  function isURL(s) {
    return /^https?:\/\//i.test(s);
  }

  function renderDrawer(data, hit, scroll) {
    const c = data.card;
    const hl = highlightsOf(data);
    // text is an element of tag and class holding a field's text with the query's terms marked.
    const text = (tag, cls, value, source, ref, field, index) => marked(el(tag, cls), value, hl(source, ref, field, index));
    const title = $("#drawer-title");
    title.replaceChildren();
    marked(title, c.title, hl("card", "", "title"));
    const body = $("#drawer-body");
    const meta = el("div", "meta");
    meta.append(el("span", "badge lane", c.status));
    if (c.type) meta.append(text("span", "badge", c.type, "card", "", "type"));
    meta.append(el("span", "badge project", c.projectTitle));
    if (c.archived) meta.append(el("span", "badge archived", t("card.archived")));
    meta.append(el("span", "muted", t("panel.updated", { time: formatTime(c.updatedAt) })));

    const top = el("section", "section");
    top.id = "sec-card";
    top.append(meta);
    if (c.tags.length) {
      const tags = el("div", "meta");
      tags.id = "card-tags";
      c.tags.forEach((tag, i) => {
        const b = el("span", "badge", "#");
        tags.append(marked(b, tag, hl("card", "", "tags", i)));
      });
      top.append(tags);
    }
    const desc = c.description ? text("div", "text", c.description, "card", "", "description") : el("div", "muted", t("panel.noDescription"));
    desc.id = "card-description";
    top.append(desc);

    const s = data.summary;
    const sum = (key, field) => [t(key), s[field], hl("summary", "", field)];
    const progress = section("panel.progress", "sec-progress", s ? [
      el("div", "item-head", formatTime(s.at)),
      kv([sum("summary.state", "state"), sum("summary.target", "target"), sum("summary.recap", "recap"), sum("summary.next", "next")]),
    ] : []);
    const activity = section("panel.activity", "sec-activity", data.notes.map((n) =>
      item(n.id, [el("span", "item-title", t("event." + n.type)), el("span", null, n.actor), el("span", null, formatTime(n.at))], text("div", "text", n.note, "note", n.id, "note"))));
    const workpad = section("panel.workpad", "sec-workpad", data.workpads.map((w) => {
      const parts = [text("div", "text", w.description, "workpad", w.id, "description")];
      if (w.command || w.evidence) {
        parts.push(kv([[t("workpad.command"), w.command, hl("workpad", w.id, "command")], [t("workpad.evidence"), w.evidence, hl("workpad", w.id, "evidence")]], true));
      }
      return item(w.id, [el("span", "item-title", t("workpad." + w.kind)), el("span", null, formatTime(w.at))], ...parts);
    }));
    const ideas = section("panel.ideas", "sec-ideas", data.ideas.map((d) =>
      item(d.id, [text("span", "item-title", d.title, "idea", d.id, "title"), el("span", "hit-status", t("idea." + d.status))],
        kv([[t("idea.detail"), d.detail, hl("idea", d.id, "detail")], [t("idea.rationale"), d.rationale, hl("idea", d.id, "rationale")],
          [t("idea.context"), d.context, hl("idea", d.id, "context")]]))));
    const artifacts = section("panel.artifacts", "sec-artifacts", data.artifacts.map((a) => {
      const target = isURL(a.target) ? Object.assign(text("a", null, a.target, "artifact", a.id, "target"), { href: a.target, target: "_blank", rel: "noopener noreferrer" })
        : text("code", null, a.target, "artifact", a.id, "target");
      const parts = [];
      if (a.note) parts.push(text("div", "text", a.note, "artifact", a.id, "note"));
      if (a.target) parts.push(target);
      return item(a.id, [text("span", "item-title", a.title, "artifact", a.id, "title"),
        a.external_key ? text("code", null, a.external_key, "artifact", a.id, "externalKey") : null], ...parts);
    }));
    const sections = [["panel.progress", progress], ["panel.activity", activity], ["panel.workpad", workpad], ["panel.ideas", ideas], ["panel.artifacts", artifacts]];
    const empty = sections.filter(([, sec]) => !sec).map(([key]) => t(key));
    body.replaceChildren(top, ...sections.map(([, sec]) => sec).filter(Boolean));
    if (empty.length) body.append(el("p", "muted empty-sections", t("panel.emptySections", { sections: empty.join(" · ") })));
    if (data.partial && data.partial.length) body.prepend(el("div", "notice", t("partial.summaries")));
    if (scroll) focusHit(hit);
  }

  // focusHit scrolls to the record a hit came from, where the query's terms are marked; without a
  // marked term it outlines the record for about 1.6 s instead.
  function focusHit(hit) {
    const body = $("#drawer-body");
    let target = null;
    if (hit) {
      if (hit.source === "summary") target = $("#sec-progress", body);
      else if (hit.source === "card") target = hit.field === "tags" ? $("#card-tags", body) : hit.field === "description" ? $("#card-description", body) : null;
      else {
        // refIds are unique within their own table only, so look in the hit's own section.
        const sec = $({ note: "#sec-activity", workpad: "#sec-workpad", idea: "#sec-ideas", artifact: "#sec-artifacts" }[hit.source] || "#sec-none", body);
        if (sec) target = (hit.refId && $$(".item", sec).find((x) => x.dataset.ref === hit.refId)) || sec;
      }
    }
    if (!target) {
      body.scrollTop = 0;
      return;
    }
    if (target.classList.contains("item")) target.classList.add("focus");
    target.scrollIntoView({ block: "center", behavior: reducedMotion.matches ? "auto" : "smooth" });
    if (!$("mark.term", target)) {
      target.classList.add("flash");
      setTimeout(() => target.classList.remove("flash"), 1600);
    }
  }

  // ---- page open/close -----------------------------------------------------------------------
  function openSearch() {
    state.searchOpen = true;
    $("#search-page").hidden = false;
    $("#home").hidden = true;
    $("#search-toggle").setAttribute("aria-pressed", "true");
    const q = $("#q");
    q.focus();
    q.select();
    if (state.query.trim()) runSearch(); // reopening queries once again
  }
  function closeSearch() {
    closeDrawer();
    state.searchOpen = false;
    clearTimeout(state.timer);
    if (state.controller) state.controller.abort();
    state.seq++;
    $("#search-page").hidden = true;
    $("#home").hidden = false;
    $("#search-toggle").setAttribute("aria-pressed", "false");
  }
  // renderStart fills the empty Search page: what a query looks like, two examples from this
  // board (a click runs one) and how many cards the scope holds.
  function renderStart() {
    const start = $("#start");
    if (!start) return;
    start.hidden = !!state.query.trim();
    const key = state.scope === "all" ? "" : state.project || "";
    const list = state.examples[key] || [];
    const box = $("#examples");
    box.replaceChildren(...list.map((q) => {
      const b = el("button", "chip example", q);
      b.type = "button";
      b.dataset.example = q;
      return b;
    }));
    $(".examples").hidden = !list.length;
    let text = "";
    if (state.scope === "all" || !state.project) {
      if (state.projects.length) {
        text = t("start.countAll", { cards: state.projects.reduce((n, p) => n + p.cards, 0), projects: state.projects.length });
      }
    } else {
      const p = state.projects.find((x) => x.id === state.project);
      if (p) text = t("start.count", { cards: p.cards, project: p.title });
    }
    $("#start-count").textContent = text;
  }
  function runExample(q) {
    const box = $("#q");
    box.value = q;
    state.query = q;
    box.focus();
    runSearch();
  }
  function renderHomeStats() {
    const cards = state.projects.reduce((n, p) => n + p.cards, 0);
    $("#home-stats").textContent = state.projects.length ? t("home.stats", { projects: state.projects.length, cards }) : "";
  }
  function isTyping(target) {
    if (!target || !(target instanceof Element)) return false;
    return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
  }

  function setScope(scope) {
    state.scope = scope;
    for (const b of $$("[data-scope]")) b.setAttribute("aria-pressed", String(b.dataset.scope === scope));
    $(".project-field").classList.toggle("muted", scope === "all");
    $("#project").disabled = scope === "all"; // every project is searched: the menu chooses none
    renderStart();
  }

  // ---- wiring --------------------------------------------------------------------------------
  function wire() {
    $("#q").addEventListener("input", (e) => {
      state.query = e.target.value;
      if (!state.query.trim()) runSearch();
      else scheduleSearch();
    });
    for (const b of $$("[data-scope]")) {
      b.addEventListener("click", () => {
        setScope(b.dataset.scope);
        runSearch();
      });
    }
    for (const b of $$("[data-source]")) {
      b.addEventListener("click", () => {
        const s = b.dataset.source;
        if (state.sources.has(s)) state.sources.delete(s);
        else state.sources.add(s);
        b.setAttribute("aria-pressed", String(state.sources.has(s)));
        runSearch();
      });
    }
    $("#project").addEventListener("change", (e) => {
      state.project = e.target.value;
      renderStart();
      if (state.scope === "project") runSearch();
    });
    $("#to-results").addEventListener("click", (e) => {
      const row = $("#results .card-row");
      if (!row) return;
      e.preventDefault();
      row.focus();
    });
    $("#examples").addEventListener("click", (e) => {
      const b = e.target.closest("[data-example]");
      if (b) runExample(b.dataset.example);
    });
    $("#lang").addEventListener("change", (e) => setLanguage(e.target.value).catch(showError));
    $("#search-toggle").addEventListener("click", () => (state.searchOpen ? closeSearch() : openSearch()));
    $("#drawer-close").addEventListener("click", closeDrawer);
    $("#scrim").addEventListener("click", closeDrawer);
    $("#results").addEventListener("click", (e) => {
      const row = e.target.closest(".card-row");
      if (!row) return;
      const li = e.target.closest(".hit");
      openDrawer(row.dataset.task, li ? row._card.hits[Number(li.dataset.hit)] : null);
    });
    $("#results").addEventListener("keydown", (e) => {
      const row = e.target.closest(".card-row");
      if (row && (e.key === "Enter" || e.key === " ")) {
        e.preventDefault();
        openDrawer(row.dataset.task, null);
      }
    });
    document.addEventListener("keydown", (e) => {
      if (e.isComposing) return;
      if (e.key === "Tab" && state.drawer) {
        // Keep the focus inside the side panel.
        const f = focusables($("#drawer"));
        const i = f.indexOf(document.activeElement);
        if (!f.length) e.preventDefault();
        else if (e.shiftKey && i <= 0) {
          e.preventDefault();
          f[f.length - 1].focus();
        } else if (!e.shiftKey && (i < 0 || i === f.length - 1)) {
          e.preventDefault();
          f[0].focus();
        }
        return;
      }
      if (e.key === "Escape") {
        if (closeDrawer()) e.preventDefault();
        else if (e.target.id === "q" && e.target.value) {
          // the first Esc in the box clears it (as a search field does), the next closes the page
          e.preventDefault();
          e.target.value = "";
          state.query = "";
          runSearch();
        }
        else if (state.searchOpen) {
          e.preventDefault();
          closeSearch();
        }
        return;
      }
      if ((e.key === "s" || e.key === "S") && !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target)) {
        e.preventDefault();
        if (state.drawer) closeDrawer();
        openSearch();
      }
    });
  }

  async function start() {
    state.fallback = await loadCatalog("en");
    await setLanguage(pickLanguage());
    wire();
    setScope("project");
    openSearch();
    if (!token) {
      showError(new APIError(401, "UNAUTHORIZED", ""));
      return;
    }
    await loadProjects();
  }
  async function loadProjects() {
    try {
      const p = await api("projects", {});
      state.lastError = null;
      showNotices([]);
      state.projects = p.projects;
      state.examples = p.examples || {};
      if (!state.projects.some((x) => x.id === state.project)) state.project = p.current || (state.projects[0] && state.projects[0].id) || null;
      const sel = $("#project");
      sel.replaceChildren(...state.projects.map((x) => Object.assign(el("option", null, x.title), { value: x.id })));
      if (state.project) sel.value = state.project;
      if (!state.project) setScope("all");
      renderHomeStats();
      renderStart();
      if (state.query.trim()) runSearch();
    } catch (err) {
      showError(err);
    }
  }
  start().catch((err) => showNotices([[String(err), "error"]]));
})();
