#!/usr/bin/env python3
"""Run the real OpenCode CLI offline against mock_api.py and keep scrubbed recordings.

Usage: harness.py [--opencode PATH] [--cairn PATH] [--out DIR] [--keep] [SCENARIO ...]

Each scenario gets a throwaway HOME with XDG_CONFIG_HOME/XDG_DATA_HOME/XDG_STATE_HOME inside
it (XDG_CACHE_HOME is shared, outside the repository, so the `@ai-sdk/openai-compatible`
package OpenCode installs on first run is fetched once), `~/.config/opencode/opencode.json`
pointing provider "mock" at the mock on 127.0.0.1, the logging plugin in
`~/.config/opencode/plugin/`, a project folder and a list of `opencode run` steps. Afterwards
the database rows, `opencode export`, the plugin log, the MCP traffic and a digest of the
mock's request log are scrubbed and copied to OUT/<scenario>/. See README.md.
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mock_api  # noqa: E402
from http.server import ThreadingHTTPServer  # noqa: E402

VERSION = "1.18.33"
NODE_DIR = "/work/opencode-harness-node"
DEFAULT_OPENCODE = NODE_DIR + "/node_modules/opencode-linux-x64/bin/opencode"
CACHE = NODE_DIR + "/xdg-cache"
MODEL = "mock-model"
OC_ID = re.compile(r"\b(ses|msg|prt|evt)_([0-9a-f]{12})([0-9A-Za-z]{14})\b")
TABLES = ["session", "message", "part", "todo", "session_context_epoch", "event"]


def todo(*items):
    return {"call": "todowrite", "args": {"todos": [
        {"content": c, "status": s, "priority": p} for c, s, p in items]}}


SCENARIOS = {
    "todowrite": {
        "about": "run 1: todowrite with 3 items (one in_progress), then text; run 2 `opencode run "
                 "--session ID`: todowrite again (first completed, second in_progress, third removed, "
                 "a new one); run 3 `--session ID --fork`: a new session from the first one, its own "
                 "todowrite.",
        "script": {"conversations": [
            {"match": "SCENARIO-TODO start", "replies": [
                [todo(("Parse config", "in_progress", "high"), ("Write store", "pending", "medium"),
                      ("Add CLI", "pending", "low"))],
                [{"text": "Started on the config parser."}],
            ]},
            {"match": "SCENARIO-TODO continue", "replies": [
                [todo(("Parse config", "completed", "high"), ("Write store", "in_progress", "medium"),
                      ("Write docs", "pending", "low"))],
                [{"text": "Config parsed, the store is under way."}],
            ]},
            {"match": "SCENARIO-TODO fork", "replies": [
                [todo(("Parse config", "completed", "high"), ("Fork only step", "in_progress", "high"))],
                [{"text": "Forked."}],
            ]},
        ], "title": "Todo scenario"},
        "steps": [{"prompt": "SCENARIO-TODO start the job"},
                  {"prompt": "SCENARIO-TODO continue the job", "resume": True},
                  {"prompt": "SCENARIO-TODO fork off", "resume": True, "fork": True}],
    },
    "fork-notodo": {
        "about": "run 1: todowrite (2 items); run 2 `--session ID --fork` answered with text only: "
                 "does the fork get the todo rows of its origin?",
        "script": {"conversations": [
            {"match": "SCENARIO-FORKLIST start", "replies": [
                [todo(("Origin step one", "in_progress", "high"), ("Origin step two", "pending", "low"))],
                [{"text": "Origin list written."}]]},
            {"match": "SCENARIO-FORKLIST fork", "replies": [[{"text": "Forked without a todowrite."}]]},
        ], "title": "Fork list scenario"},
        "steps": [{"prompt": "SCENARIO-FORKLIST start"},
                  {"prompt": "SCENARIO-FORKLIST fork", "resume": True, "fork": True}],
    },
    "mcp": {
        "about": "cairn registered under `mcp` in opencode.json (through mcp_shim.py, which logs its "
                 "environment and every JSON-RPC line); the model calls cairn_TaskCreate x2, "
                 "cairn_TaskUpdate, cairn_TaskList; a run with --session ID calls cairn_TaskList; a "
                 "second session (new run) calls cairn_TaskList. Shows what tells the server which "
                 "session it serves.",
        "cairn": True,
        "script": {"conversations": [
            {"match": "SCENARIO-MCP use", "replies": [
                [{"call": "cairn_TaskCreate", "args": {"subject": "From MCP", "description": "Created through cairn mcp"}}],
                [{"call": "cairn_TaskCreate", "args": {"subject": "Second"}}],
                [{"call": "cairn_TaskUpdate", "args": {"taskid": 1, "status": "inprogress"}}],
                [{"call": "cairn_TaskList", "args": {}}],
                [{"text": "cairn tasks used."}],
            ]},
            {"match": "SCENARIO-MCP continue", "replies": [
                [{"call": "cairn_TaskList", "args": {}}],
                [{"text": "Back again."}],
            ]},
            {"match": "SCENARIO-MCP other", "replies": [
                [{"call": "cairn_TaskList", "args": {}}],
                [{"text": "Another session."}],
            ]},
        ], "title": "MCP scenario"},
        "steps": [{"prompt": "SCENARIO-MCP use cairn"},
                  {"prompt": "SCENARIO-MCP continue", "resume": True},
                  {"prompt": "SCENARIO-MCP other session"}],
    },
    "compact": {
        "about": "auto-compaction: todowrite, then a reply reporting prompt_tokens 50000 with the "
                 "model's limit {context: 8000, output: 1000}: OpenCode compacts (a request with the "
                 "summarization system prompt, no tools; the plugin's experimental.session.compacting "
                 "adds PLUGIN-COMPACTING-CONTEXT), then auto-continues; run 2 `--session ID` after it.",
        "limit": {"context": 8000, "output": 1000},
        "script": {"conversations": [
            {"match": "SCENARIO-COMPACT start", "replies": [
                [todo(("Collect data", "in_progress", "high"), ("Summarise", "pending", "medium"))],
                [todo(("Collect data", "completed", "high"), ("Summarise", "in_progress", "medium"))],
                [{"text": "Not reached if the compaction comes first."}],
            ]},
            {"match": "Continue if you have next steps", "replies": [
                [{"text": "CHECKPOINT-AFTER-COMPACT going on after the compaction."}],
            ]},
            {"match": "SCENARIO-COMPACT after", "replies": [
                [todo(("Collect data", "completed", "high"), ("Summarise", "completed", "medium"))],
                [{"text": "Resumed after the compaction."}],
            ]},
        ], "summary": "SUMMARY-TEXT: a two-step todo list (Collect data, Summarise) is under way.",
            "title": "Compact scenario",
            "usage": {"SCENARIO-COMPACT start#1": 50000}},
        "steps": [{"prompt": "SCENARIO-COMPACT start gathering"},
                  {"prompt": "SCENARIO-COMPACT after the compaction", "resume": True}],
    },
    "mcp-serve": {
        "about": "one `opencode serve` process, two sessions A and B made over its HTTP API, each calls "
                 "cairn_TaskCreate/cairn_TaskList: one MCP server process serves both (see the pid in "
                 "mcp-log.jsonl). The plugin's tool.execute.before adds `cairn_session: <sessionID>` to "
                 "the arguments of every cairn_* call (OC_HARNESS_PLUGIN_TAG_MCP=1): does it reach the "
                 "server?",
        "cairn": True,
        "tag_mcp": True,
        "serve": [{"new": "A"}, {"say": "A", "text": "SCENARIO-SERVE-A create"}, {"new": "B"},
                  {"say": "B", "text": "SCENARIO-SERVE-B list"}, {"say": "A", "text": "SCENARIO-SERVE-A again"}],
        "script": {"conversations": [
            {"match": "SCENARIO-SERVE-A create", "replies": [
                [{"call": "cairn_TaskCreate", "args": {"subject": "Made in session A"}}],
                [{"text": "A made a task."}]]},
            {"match": "SCENARIO-SERVE-B list", "replies": [
                [{"call": "cairn_TaskList", "args": {}}],
                [{"text": "B listed."}]]},
            {"match": "SCENARIO-SERVE-A again", "replies": [
                [{"call": "cairn_TaskList", "args": {}}],
                [{"text": "A listed."}]]},
        ], "title": "Serve scenario"},
        "steps": [],
    },
    "compact-api": {
        "about": "manual compaction: `opencode serve` on 127.0.0.1, a session made with POST "
                 "/session + /session/ID/message (todowrite), then POST /session/ID/summarize (what the "
                 "TUI's /compact calls), then one more message.",
        "serve": [{"new": "A"}, {"say": "A", "text": "SCENARIO-MANUAL start"}, {"summarize": "A"},
                  {"say": "A", "text": "SCENARIO-MANUAL after"}, {"todo": "A"}],
        "script": {"conversations": [
            {"match": "SCENARIO-MANUAL start", "replies": [
                [todo(("Manual step one", "in_progress", "high"), ("Manual step two", "pending", "low"))],
                [{"text": "Started."}],
            ]},
            {"match": "SCENARIO-MANUAL after", "replies": [
                [{"text": "After the manual compaction."}],
            ]},
        ], "summary": "SUMMARY-TEXT: manual compaction of a two-step list.", "title": "Manual compact"},
        "steps": [],
    },
    "cairn-setup": {
        "about": "cairn's own setup in place: `cairn init` and `cairn setup opencode --scope project` (run "
                 "twice: the second must change nothing) in a project whose opencode.json already has other "
                 "keys; the harness's logging plugin stays in ~/.config/opencode/plugin/ (no markers, no "
                 "tagging: cairn's plugin does that). Run 1: cairn_TaskCreate x3 and cairn_TaskUpdate (#1 "
                 "inprogress), then todowrite (3 items) answered with prompt_tokens 50000 over the model's "
                 "limit {context: 8000, output: 1000}: an auto-compaction (cairn's plugin adds the lists to "
                 "the compaction prompt), then the auto-continue turn (the lists in the system prompt after "
                 "session.compacted); run 2 `opencode run --session ID`: the lists in the system prompt on "
                 "the session's first request in the new process, then cairn_TaskUpdate (#1 completed).",
        "setup": True,
        "limit": {"context": 8000, "output": 1000},
        "script": {"conversations": [
            {"match": "SCENARIO-CAIRN start", "replies": [
                [{"call": "cairn_TaskCreate", "args": {"subject": "Parse the config",
                                                       "description": "Read cairn.toml and check it"}}],
                [{"call": "cairn_TaskCreate", "args": {"subject": "Write the store"}}],
                [{"call": "cairn_TaskCreate", "args": {"subject": "Add the CLI"}}],
                [{"call": "cairn_TaskUpdate", "args": {"taskid": 1, "status": "inprogress"}}],
                [todo(("Read the config file", "completed", "high"), ("Check the keys", "in_progress", "medium"),
                      ("Report errors", "pending", "low"))],
                [{"text": "Not reached if the compaction comes first."}],
            ]},
            {"match": "Continue if you have next steps", "replies": [
                [{"text": "CHECKPOINT-AFTER-COMPACT going on after the compaction."}],
            ]},
            {"match": "SCENARIO-CAIRN resume", "replies": [
                [{"call": "cairn_TaskUpdate", "args": {"taskid": 1, "status": "completed"}}],
                [{"text": "CHECKPOINT-AFTER-RESUME the config is parsed."}],
            ]},
        ], "summary": "SUMMARY-TEXT: three cairn tasks and a todowrite list are under way.",
            "title": "Cairn setup scenario",
            "usage": {"SCENARIO-CAIRN start#4": 50000}},
        "steps": [{"prompt": "SCENARIO-CAIRN start the work"},
                  {"prompt": "SCENARIO-CAIRN resume the work", "resume": True}],
    },
}


class Scrubber:
    """Replaces machine paths with neutral ones and cuts OpenCode's long prompt text."""

    LONG = 400
    WHOLE = ("arguments", "output", "result", "text", "content", "summary", "prompt", "input", "stderr_tail",
             "serve_log_tail")

    def __init__(self, root, home, proj, cairn=None, opencode=None):
        self.pairs = [(proj, "/home/user/project"), (home, "/home/user"), (CACHE, "/home/user/.cache"),
                      (root, "/tmp/run"), (HERE, "/opt/opencode-harness")]
        if cairn and os.path.isabs(cairn):
            self.pairs.append((cairn, "/usr/local/bin/cairn"))
        if opencode:
            self.pairs.append((opencode, "/usr/local/bin/opencode"))
        self.pairs.append((NODE_DIR, "/opt/opencode-node"))
        self.ids = {}

    def s(self, v):
        for a, b in self.pairs:
            v = v.replace(a, b)
        v = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", v)
        v = OC_ID.sub(self.ident, v)
        # session.path is the directory relative to the worktree ("/" outside git): no leading slash
        v = re.sub(r"(?<![/\w])tmp/opencode-harness-[a-z0-9_]+/project", "home/user/project", v)
        v = re.sub(r"(?<![/\w])tmp/opencode-harness-[a-z0-9_]+", "tmp/run", v)
        return re.sub(r"/tmp/opencode-harness-[a-z0-9_]+", "/tmp/run", v)

    def ident(self, m):
        """An OpenCode id keeps its prefix and its 12-character time part (so the order of ids
        stays), and its 14 random characters become a number: cairn's redactor takes some of the
        random ones for secrets (core/redact's false-positive test reads fixtures/)."""
        key = m.group(0)
        if key not in self.ids:
            self.ids[key] = "%s_%s%014d" % (m.group(1), m.group(2), len(self.ids) + 1)
        return self.ids[key]

    def value(self, v, key=None, whole=False):
        if isinstance(v, str):
            v = self.s(v)
            if (not whole and len(v) > self.LONG and "SCENARIO-" not in v and "PLUGIN-" not in v
                    and "SUMMARY-TEXT" not in v and not (key in self.WHOLE and len(v) < 4000)):
                return v[:self.LONG // 3] + " [...scrubbed %d chars of runtime text]" % (len(v) - self.LONG // 3)
            if len(v) > 6000:
                return v[:3000] + " [...scrubbed %d chars]" % (len(v) - 3000)
            return v
        if isinstance(v, list):
            return [self.value(x, key, whole) for x in v]
        if isinstance(v, dict):
            return {self.s(k): self.value(x, k, whole) for k, x in v.items()}
        return v

    def jsonl(self, src, dst):
        with open(src) as f, open(dst, "w") as g:
            for line in f:
                line = line.strip()
                if line:
                    g.write(json.dumps(self.value(json.loads(line)), ensure_ascii=False,
                                       separators=(",", ":")) + "\n")


def plugin_digest(src, dst, scrub):
    """The plugin log, small: every hook call whole, but of each event type only the first one
    whole and the later ones as {type, sessionID} (message.part.updated and friends repeat the
    database rows)."""
    seen = set()
    recs = []
    with open(src) as f:
        for line in f:
            r = json.loads(line)
            if r.get("hook") == "event" and isinstance(r.get("input"), dict):
                t = r["input"].get("type")
                if t in seen and t not in ("session.compacted", "session.idle", "todo.updated", "session.created"):
                    props = r["input"].get("properties") or {}
                    r = {"time": r["time"], "hook": "event", "input": {"type": t, "properties": {
                        k: props[k] for k in ("sessionID", "status") if k in props}}, "digest": True}
                seen.add(t)
            elif r.get("hook") == "experimental.chat.system.transform":
                sysm = (r.get("output") or {}).get("system") or []
                r["output"] = {"system": [x[:120] + (" [...%d chars]" % len(x) if len(x) > 120 else "")
                                          for x in sysm]}
            recs.append(scrub.value(r))
    # one JSON array, a key a line: on one line, session records trip cairn's redactor
    # ("permission":"question" after a timestamp), which core/redact's false-positive test runs
    # over fixtures/
    with open(dst, "w") as g:
        json.dump(recs, g, indent=1, ensure_ascii=False)


def mcp_digest(src, dst, scrub):
    """The MCP log with the tools/list answer cut to the tool names and one whole tool."""
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            r = json.loads(line)
            res = (r.get("msg") or {}).get("result") or {}
            if isinstance(res, dict) and isinstance(res.get("tools"), list) and res["tools"]:
                tools = res["tools"]
                res["tools"] = [tools[0]] + [{"name": t.get("name"), "digest": True} for t in tools[1:]]
            g.write(json.dumps(scrub.value(r), ensure_ascii=False, separators=(",", ":")) + "\n")


def request_digest(rec, first=True):
    """One mock request, small: what OpenCode sent and what it was answered."""
    b = rec.get("body") or {}
    out = {"method": rec["method"], "path": rec["path"], "answer": rec.get("answer")}
    h = rec.get("headers") or {}
    out["headers"] = {k: v for k, v in h.items() if k.lower() not in ("host", "content-length", "connection",
                                                                       "accept-encoding")}
    if isinstance(b, dict) and "messages" in b:
        out["model"] = b.get("model")
        tools = []
        for t in b.get("tools") or []:
            fn = t.get("function") or {}
            if first and fn.get("name", "").startswith("cairn"):
                tools.append({"name": fn.get("name"), "parameters": fn.get("parameters")})
            else:
                tools.append(fn.get("name") or t.get("type"))
        out["tools"] = tools
        out["messages"] = b.get("messages")
        out["other"] = {k: v for k, v in b.items() if k not in ("messages", "tools")}
    elif b:
        out["body"] = b
    return out


def dump_db(path, dst, scrub):
    """The rows of OpenCode's tables (read-only), the schema, and the table list."""
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    con.row_factory = sqlite3.Row
    names = [r[0] for r in con.execute("select name from sqlite_master where type='table' order by name")]
    # one schema for every scenario of a version (fixtures/opencode/db-schema.sql); a scenario
    # whose database differs keeps its own beside its rows
    schema = "".join(sql.strip() + ";\n" for (sql,) in con.execute(
        "select sql from sqlite_master where sql is not null order by type desc, name"))
    shared = os.path.join(os.path.dirname(os.path.abspath(dst)), "db-schema.sql")
    if not os.path.exists(shared):
        with open(shared, "w") as f:
            f.write(schema)
    elif open(shared).read() != schema:
        with open(os.path.join(dst, "db-schema.sql"), "w") as f:
            f.write(schema)
    rows = {"tables": names}
    for t in TABLES:
        if t not in names:
            continue
        out = []
        for r in con.execute('select * from "%s"' % t):
            d = dict(r)
            for k, v in d.items():
                if isinstance(v, (bytes, bytearray)):
                    d[k] = "<%d bytes>" % len(v)
                elif isinstance(v, str) and v[:1] in "{[":
                    try:
                        d[k] = json.loads(v)
                    except ValueError:
                        pass
            out.append(d)
        if t == "event":
            # the event log repeats every row of message/part/session: keep its shape, not its copies
            out = [dict((k, v) for k, v in e.items() if k != "data") if e.get("type") not in
                   ("session.created.1",) else e for e in out]
        rows[t] = out
    con.close()
    with open(os.path.join(dst, "db-rows.json"), "w") as f:
        json.dump(scrub.value(rows), f, indent=1, ensure_ascii=False)


def config_for(port, sc, proj, root, cairn_bin):
    model = {"name": "Mock model", "tool_call": True}
    if sc.get("limit"):
        model["limit"] = sc["limit"]
    cfg = {"$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
           "model": "mock/" + MODEL, "small_model": "mock/" + MODEL,
           "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                                 "options": {"baseURL": "http://127.0.0.1:%d/v1" % port, "apiKey": "test"},
                                 "models": {MODEL: model}}},
           "permission": {"edit": "allow", "bash": "allow", "webfetch": "deny"}}
    if sc.get("cairn") and not sc.get("setup"):
        cfg["mcp"] = {"cairn": {"type": "local", "enabled": True,
                                "command": ["python3", os.path.join(HERE, "mcp_shim.py"),
                                            os.path.join(root, "mcp-log.jsonl"), "--",
                                            os.path.abspath(cairn_bin), "mcp"],
                                "environment": {"CAIRN_HARNESS": "1"}}}
    return cfg


# the project's own opencode.json before cairn's setup: keys cairn must keep, in their order
PROJECT_CONFIG = {
    "$schema": "https://opencode.ai/config.json",
    "instructions": ["NOTES.md"],
    "mcp": {"notes-server": {"type": "local", "command": ["true"], "enabled": False}},
    "permission": {"webfetch": "deny"},
    "agent": {"review": {"description": "Reviews a change", "mode": "subagent"}},
}


def run_setup(proj, env, root):
    """`cairn setup opencode --scope project` twice in a project whose opencode.json has other keys;
    setup.txt gets both outputs and the diff between the file after run 1 and after run 2."""
    cfg = os.path.join(proj, "opencode.json")
    with open(cfg, "w") as f:
        json.dump(PROJECT_CONFIG, f, indent=2)
        f.write("\n")
    shutil.copy(cfg, os.path.join(root, "project-opencode.before.json"))
    with open(os.path.join(proj, "NOTES.md"), "w") as f:
        f.write("Project notes.\n")
    log = []
    after = []
    for i in (1, 2):
        r = subprocess.run(["cairn", "setup", "opencode", "--scope", "project"], cwd=proj, env=env,
                           capture_output=True, text=True)
        log.append("$ cairn setup opencode --scope project   # run %d, exit %d\n%s%s" % (i, r.returncode, r.stdout, r.stderr))
        after.append((open(cfg).read(), open(os.path.join(proj, ".opencode", "plugin", "cairn.js")).read()))
    import difflib
    d = "".join(difflib.unified_diff(after[0][0].splitlines(True), after[1][0].splitlines(True),
                                     "opencode.json after run 1", "opencode.json after run 2"))
    d += "".join(difflib.unified_diff(after[0][1].splitlines(True), after[1][1].splitlines(True),
                                      "cairn.js after run 1", "cairn.js after run 2"))
    backups = sorted(fn for fn in os.listdir(proj) if ".cairn-backup" in fn)
    log.append("$ diff (after run 1, after run 2)   # empty: the second run changed nothing\n" + d)
    log.append("$ ls project   # backups of files setup changed\n" + "\n".join(backups) + "\n")
    with open(os.path.join(root, "setup.txt"), "a") as f:
        f.write("".join(log))


def run(name, sc, opencode, out, keep, cairn_bin):
    root = tempfile.mkdtemp(prefix="opencode-harness-")
    home = os.path.join(root, "home")
    proj = os.path.join(root, "project")
    conf = os.path.join(home, ".config", "opencode")
    os.makedirs(os.path.join(conf, "plugin"))
    os.makedirs(proj)
    os.makedirs(CACHE, exist_ok=True)
    shutil.copy(os.path.join(HERE, "log_plugin.js"), os.path.join(conf, "plugin", "harness-log.js"))
    plugin_log = os.path.join(root, "plugin-log.jsonl")

    reqlog = os.path.join(root, "requests.jsonl")
    logf = open(reqlog, "a")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), mock_api.make_handler(sc["script"], logf))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]

    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("OPENCODE") or k.startswith("CAIRN") or k.startswith("CLAUDE")
                   or k.startswith("CODEX") or k.startswith("OPENAI") or k.startswith("XDG")
                   or k.startswith("ANTHROPIC"))}
    env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
                "XDG_STATE_HOME": os.path.join(home, ".local", "state"), "XDG_CACHE_HOME": CACHE,
                "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "PWD": proj, "OC_HARNESS_PLUGIN_LOG": plugin_log, "OC_HARNESS_PLUGIN_MARKS": "1", "NO_COLOR": "1"})
    if sc.get("tag_mcp"):
        env["OC_HARNESS_PLUGIN_TAG_MCP"] = "1"
    if sc.get("setup"):
        sc["cairn"] = True
        env["OC_HARNESS_PLUGIN_MARKS"] = "0"
    if sc.get("cairn"):
        bindir = os.path.dirname(os.path.abspath(cairn_bin))
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        r = subprocess.run([cairn_bin, "init"], cwd=proj, env=env, capture_output=True, text=True)
        with open(os.path.join(root, "setup.txt"), "w") as f:
            f.write("$ cairn init\n" + r.stdout + r.stderr)
    if sc.get("setup"):
        run_setup(proj, env, root)
    with open(os.path.join(conf, "opencode.json"), "w") as f:
        json.dump(config_for(port, sc, proj, root, cairn_bin), f, indent=2)

    session = None
    sessions_seen = []
    steps_out = []
    for step in sc["steps"]:
        cmd = [opencode, "run", "--format", "json", "--print-logs", "--log-level", "INFO"]
        if step.get("resume"):
            cmd += ["--session", session]
        if step.get("fork"):
            cmd += ["--fork"]
        cmd += [step["prompt"]]
        t0 = time.time()
        r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
        events, this = [], None
        for line in r.stdout.splitlines():
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            events.append(ev)
            this = this or ev.get("sessionID") or (ev.get("part") or {}).get("sessionID")
        session = session or this
        sessions_seen.append(this)
        steps_out.append({"argv": ["opencode"] + cmd[1:], "rc": r.returncode, "session": this,
                          "seconds": round(time.time() - t0, 1), "events": events,
                          # OpenCode's own log only when the step failed: its "created id=ses_…"
                          # lines trip cairn's redactor (see plugin_digest)
                          "stderr_tail": r.stderr[-2500:] if r.returncode else None})
        print("%s: %s rc=%d session=%s" % (name, step["prompt"], r.returncode, this), file=sys.stderr)
    if sc.get("serve"):
        steps_out += serve_steps(opencode, proj, env, sessions_seen, sc["serve"])
        session = sessions_seen[0] if sessions_seen else None
    srv.shutdown()
    logf.close()

    scrub = Scrubber(root, home, proj, cairn_bin if sc.get("cairn") else None, opencode)
    dst = os.path.join(out, name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    with open(os.path.join(dst, "VERSION"), "w") as f:
        f.write(VERSION + "\n")
    db = os.path.join(home, ".local", "share", "opencode", "opencode.db")
    listing = []
    for dp, _, fs in os.walk(os.path.join(home, ".local")):
        for fn in fs:
            p = os.path.join(dp, fn)
            listing.append("%s %d" % (os.path.relpath(p, home), os.path.getsize(p)))
    with open(os.path.join(dst, "data-files.txt"), "w") as f:
        f.write("\n".join(sorted(listing)) + "\n")
    if os.path.exists(db):
        dump_db(db, dst, scrub)
    for i, sid in enumerate(s for s in dict.fromkeys(sessions_seen) if s):
        r = subprocess.run([opencode, "export", sid], cwd=proj, env=env, capture_output=True, text=True,
                           timeout=120, stdin=subprocess.DEVNULL)
        txt = r.stdout
        try:
            val = json.loads(txt[txt.index("{"):])
        except ValueError:
            val = {"_raw": txt, "_stderr": r.stderr[-1000:]}
        with open(os.path.join(dst, "export-%d.json" % (i + 1)), "w") as f:
            json.dump(scrub.value(val), f, indent=1, ensure_ascii=False)
    r = subprocess.run([opencode, "session", "list", "--format", "json"], cwd=proj, env=env,
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    with open(os.path.join(dst, "session-list.txt"), "w") as f:
        f.write(scrub.s(r.stdout + r.stderr[-500:]))
    if os.path.exists(plugin_log):
        plugin_digest(plugin_log, os.path.join(dst, "plugin-log.json"), scrub)
    mcplog = os.path.join(root, "mcp-log.jsonl")
    if os.path.exists(mcplog):
        mcp_digest(mcplog, os.path.join(dst, "mcp-log.jsonl"), scrub)
    with open(reqlog) as f, open(os.path.join(dst, "requests.jsonl"), "w") as g:
        for i, line in enumerate(f):
            g.write(json.dumps(scrub.value(request_digest(json.loads(line), first=i < 2)), ensure_ascii=False,
                               separators=(",", ":")) + "\n")
    if sc.get("cairn"):
        for dp, _, fs in os.walk(proj):
            for fn in fs:
                if fn.endswith(".jsonl"):
                    rel = scrub.s(os.path.relpath(os.path.join(dp, fn), proj)).replace(os.sep, "_")
                    scrub.jsonl(os.path.join(dp, fn), os.path.join(dst, "cairn-" + rel))
        with open(os.path.join(root, "setup.txt")) as f, open(os.path.join(dst, "setup.txt"), "w") as g:
            g.write(scrub.s(f.read()))
    with open(os.path.join(conf, "opencode.json")) as f, open(os.path.join(dst, "opencode.json"), "w") as g:
        g.write(scrub.s(f.read()))
    if sc.get("setup"):
        for src, name in ((os.path.join(root, "project-opencode.before.json"), "project-opencode.before.json"),
                          (os.path.join(proj, "opencode.json"), "project-opencode.json"),
                          (os.path.join(proj, ".opencode", "plugin", "cairn.js"), "project-plugin-cairn.js")):
            with open(src) as f, open(os.path.join(dst, name), "w") as g:
                g.write(scrub.s(f.read()))
    with open(os.path.join(dst, "steps.json"), "w") as f:
        json.dump(scrub.value({"about": sc["about"], "session": session, "sessions": sessions_seen,
                               "steps": steps_out}), f, indent=1, ensure_ascii=False)
    if keep:
        print("kept %s" % root, file=sys.stderr)
    else:
        shutil.rmtree(root, ignore_errors=True)


def http(method, url, body=None, timeout=120):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        raw = r.read().decode()
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def serve_steps(opencode, proj, env, sessions_seen, plan):
    """`opencode serve` and its HTTP API, driven by plan: [{"new": L} | {"say": L, "text": T} |
    {"summarize": L} | {"todo": L}] where L names a session made by "new"."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    p = subprocess.Popen([opencode, "serve", "--port", str(port), "--hostname", "127.0.0.1", "--print-logs"],
                         cwd=proj, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, text=True)
    base = "http://127.0.0.1:%d" % port
    q = "?directory=" + urllib.request.quote(proj)
    model = {"providerID": "mock", "modelID": MODEL}
    out, ids = [], {}
    try:
        for _ in range(100):
            try:
                http("GET", base + "/session", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        for st in plan:
            if "new" in st:
                method, path, body = "POST", "/session", {}
            elif "say" in st:
                method, path, body = "POST", "/session/%s/message" % ids[st["say"]], {
                    "model": model, "parts": [{"type": "text", "text": st["text"]}]}
            elif "summarize" in st:
                method, path, body = "POST", "/session/%s/summarize" % ids[st["summarize"]], model
            else:
                method, path, body = "GET", "/session/%s/todo" % ids[st["todo"]], None
            try:
                ans = http(method, base + path + q, body)
            except Exception as e:  # noqa: BLE001
                ans = {"error": str(e)}
            if "new" in st and isinstance(ans, dict):
                ids[st["new"]] = ans["id"]
                sessions_seen.append(ans["id"])
            out.append({"http": "%s %s" % (method, path), "body": body, "answer": ans})
            print("serve: %s %s -> %s" % (method, path, str(ans)[:100]), file=sys.stderr)
    finally:
        p.terminate()
        try:
            log, _ = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            log, _ = p.communicate()
        out.append({"serve_rc": p.returncode})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opencode", default=os.environ.get("OPENCODE_BIN", DEFAULT_OPENCODE))
    ap.add_argument("--cairn", default=os.environ.get("CAIRN_BIN", "/tmp/oc-cairn"))  # cairn-setup: /tmp/cairn-accept/cairn
    ap.add_argument("--out", default="/work/opencode-fixtures")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    names = a.scenarios or list(SCENARIOS)
    os.makedirs(a.out, exist_ok=True)
    for n in names:
        run(n, SCENARIOS[n], a.opencode, a.out, a.keep, a.cairn)


if __name__ == "__main__":
    main()
