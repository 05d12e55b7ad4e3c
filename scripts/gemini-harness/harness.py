#!/usr/bin/env python3
"""Run the real Gemini CLI offline against mock_api.py and keep scrubbed session files.

Usage: harness.py [--gemini PATH] [--cairn PATH] [--out DIR] [--keep] [SCENARIO ...]

Each scenario gets a throwaway HOME with ~/.gemini/settings.json (auth gemini-api-key, every hook
event registered to hook_log.py, cairn as an MCP server where the scenario uses it), a project
folder, its own mock server on 127.0.0.1 (GOOGLE_GEMINI_BASE_URL) and a list of `gemini -p` steps
(`--resume ID` for later ones). Afterwards the session files
(~/.gemini/tmp/<project>/chats/session-*.jsonl), projects.json, the hook inputs, the MCP traffic
and a digest of the mock's request log are scrubbed and copied to OUT/<scenario>/. See README.md.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mock_api  # noqa: E402
from http.server import ThreadingHTTPServer  # noqa: E402

VERSION = "0.61.0"
DEFAULT_GEMINI = "/work/gemini-harness-node/node_modules/@google/gemini-cli/bundle/gemini.js"
# HookEventName in packages/core/src/hooks/types.ts, all registered
HOOK_EVENTS = ["SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
               "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification"]
MODEL = "gemini-2.5-flash"


def todos(*items):
    return {"call": "write_todos", "args": {"todos": [{"description": d, "status": s} for d, s in items]}}


def filler(n, seed):
    """n words of varied text: a long reply without repeats (Gemini CLI's loop detector stops
    execution on repeated chunks)."""
    import random
    r = random.Random(seed)
    words = ["alpha", "river", "stone", "copper", "meadow", "signal", "harbor", "lantern", "quartz", "ember",
             "orbit", "willow", "basalt", "cobalt", "thistle", "saffron", "glacier", "juniper", "pylon", "delta"]
    return " ".join("%s%d" % (r.choice(words), r.randint(0, 999)) for _ in range(n))


def mcp(name, args=None):
    # 0.61.0 offers an MCP tool as mcp_<server>_<tool> (the bare name is "not found")
    return {"call": "mcp_cairn_" + name, "args": args or {}}


CTX_HOOKS = {
    "SessionStart": {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                            "additionalContext": "HOOK-SESSIONSTART-CONTEXT"}},
    "SessionStart:resume": {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                   "additionalContext": "HOOK-SESSIONSTART-RESUME-CONTEXT"}},
    "BeforeAgent": {"hookSpecificOutput": {"hookEventName": "BeforeAgent",
                                           "additionalContext": "HOOK-BEFOREAGENT-CONTEXT"}},
    "PreCompress": {"systemMessage": "HOOK-PRECOMPRESS-SYSTEM-MESSAGE",
                    "hookSpecificOutput": {"hookEventName": "PreCompress",
                                           "additionalContext": "HOOK-PRECOMPRESS-CONTEXT"}},
}

SCENARIOS = {
    "todos": {
        "about": "write_todos four times (3 items; item 1 in_progress; 1 completed + 2 in_progress; item 2 "
                 "renamed and item 3 cancelled), then text. Is the list in the session file?",
        "script": {"conversations": [
            {"match": "SCENARIO-TODOS", "replies": [
                [todos(("Parse config", "pending"), ("Write store", "pending"), ("Add CLI", "pending"))],
                [todos(("Parse config", "in_progress"), ("Write store", "pending"), ("Add CLI", "pending"))],
                [todos(("Parse config", "completed"), ("Write store", "in_progress"), ("Add CLI", "pending"))],
                [todos(("Parse config", "completed"), ("Write the task store", "in_progress"),
                       ("Add CLI", "cancelled"))],
                [{"text": "Todos recorded: the store is being written."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-TODOS plan the work"}],
    },
    "mcp": {
        "about": "cairn registered under mcpServers (through mcp_shim.py, which logs its environment and "
                 "every JSON-RPC line); the model calls TaskCreate x2, TaskUpdate, TaskList by the names "
                 "Gemini CLI offers them (mcp_cairn_<tool>); then a resumed run calls TaskList.",
        "cairn": True,
        "script": {"conversations": [
            {"match": "SCENARIO-MCP use", "replies": [
                [mcp("TaskCreate", {"subject": "From MCP", "description": "Created through cairn mcp"})],
                [mcp("TaskCreate", {"subject": "Second"})],
                [mcp("TaskUpdate", {"taskid": 1, "status": "inprogress"})],
                [mcp("TaskList")],
                [{"text": "cairn tasks used."}],
            ]},
            {"match": "SCENARIO-MCP continue", "replies": [
                [mcp("TaskList")],
                [{"text": "Back again."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-MCP use cairn"},
                  {"prompt": "SCENARIO-MCP continue", "resume": True}],
    },
    "resume": {
        "about": "run 1: write_todos (3 items, item 1 in_progress); run 2 `gemini --resume <uuid> -p`: the "
                 "hooks answer with context markers; what SessionStart gets, what the mock receives "
                 "(history, todos?), whether the session file is appended.",
        "hook_replies": CTX_HOOKS,
        "script": {"conversations": [
            {"match": "SCENARIO-RESUME start", "replies": [
                [todos(("Alpha", "in_progress"), ("Beta", "pending"), ("Gamma", "pending"))],
                [{"text": "Started Alpha."}],
            ]},
            {"match": "SCENARIO-RESUME continue", "replies": [
                [todos(("Alpha", "completed"), ("Beta", "in_progress"), ("Gamma", "pending"))],
                [{"text": "Alpha done, Beta under way."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-RESUME start the job"},
                  {"prompt": "SCENARIO-RESUME continue the job", "resume": True}],
    },
    "compress": {
        "about": "run 1: write_todos and a long text reply (so that a later split point exists: Gemini CLI "
                 "keeps the newest 30% of the history and only splits before a user prompt); run 2 "
                 "`--resume`: write_todos answered with promptTokenCount 900000 (over model.compressionThreshold "
                 "0.5 of gemini-2.5-flash's 1048576): before the next request Gemini CLI fires PreCompress "
                 "(trigger auto), sends the summariser and verification generateContent requests and goes on "
                 "with the compressed history; run 3 `--resume` again: what a resumed session replays after a "
                 "compression. The hooks answer with markers.",
        "hook_replies": CTX_HOOKS,
        "settings": {"model": {"compressionThreshold": 0.5}},
        "script": {"conversations": [
            {"match": "SCENARIO-COMPRESS start", "replies": [
                [todos(("Collect data", "in_progress"), ("Summarise", "pending"))],
                [{"text": "Collected. " + filler(1200, 1)}],
            ]},
            {"match": "SCENARIO-AFTERCOMPRESS", "replies": [
                [todos(("Collect data", "completed"), ("Summarise", "in_progress"))],
                [{"text": "CHECKPOINT-AFTER-COMPRESS summarising."}],
            ]},
            {"match": "SCENARIO-THIRD", "replies": [[{"text": "Third run after the compression."}]]},
        ],
            "summary": "<state_snapshot>SUMMARY-TEXT: a two-step todo list (Collect data, Summarise) is under "
                       "way.</state_snapshot>",
            "usage": {"SCENARIO-AFTERCOMPRESS#0": 900000}},
        "steps": [{"prompt": "SCENARIO-COMPRESS start gathering"},
                  {"prompt": "SCENARIO-AFTERCOMPRESS go on", "resume": True},
                  {"prompt": "SCENARIO-THIRD once more", "resume": True}],
    },
    "compress-slash": {
        "about": "`-p /compress` in a resumed headless run (the built-in command; no SessionStart context "
                 "this time, which would be put in front of the slash and hide it), then a prompt.",
        "hook_replies": {k: v for k, v in CTX_HOOKS.items() if not k.startswith("SessionStart")},
        "script": {"conversations": [
            {"match": "SCENARIO-SLASH start", "replies": [
                [todos(("Only step", "in_progress"))],
                [{"text": "Started. " + filler(1200, 2)}],
            ]},
            {"match": "SCENARIO-SLASH after", "replies": [[{"text": "After /compress."}]]},
        ], "summary": "<state_snapshot>SUMMARY-TEXT: one step in progress.</state_snapshot>"},
        "steps": [{"prompt": "SCENARIO-SLASH start"},
                  {"prompt": "/compress", "resume": True},
                  {"prompt": "SCENARIO-SLASH after", "resume": True}],
    },
    "cairn-setup": {
        "about": "cairn's own setup in place: `cairn init` and `cairn setup gemini --scope project` (run twice: "
                 "the second must change nothing) in a project whose .gemini/settings.json already has other "
                 "keys and the harness's logging hooks (they answer nothing and must stay). Run 1: "
                 "mcp_cairn_TaskCreate x3, mcp_cairn_TaskUpdate (#1 inprogress), write_todos (3 items), a long "
                 "reply; run 2 `--resume ID`: cairn's BeforeAgent gives the lists back (on resume); the first "
                 "reply, mcp_cairn_TaskUpdate, reports promptTokenCount 900000: an automatic compression "
                 "before the next request; run 3 `--resume ID` after the compression: the lists again.",
        "setup": True,
        "script": {"conversations": [
            {"match": "SCENARIO-CAIRN start", "replies": [
                [mcp("TaskCreate", {"subject": "Parse the config", "description": "Read cairn.toml and check it"})],
                [mcp("TaskCreate", {"subject": "Write the store"})],
                [mcp("TaskCreate", {"subject": "Add the CLI"})],
                [mcp("TaskUpdate", {"taskid": 1, "status": "inprogress"})],
                [todos(("Read the config file", "completed"), ("Check the keys", "in_progress"),
                       ("Report errors", "pending"))],
                [{"text": "Started. " + filler(1200, 3)}],
            ]},
            {"match": "SCENARIO-CAIRN-RESUME", "replies": [
                [mcp("TaskUpdate", {"taskid": 1, "status": "completed"})],
                [{"text": "CHECKPOINT-AFTER-COMPRESS the config is parsed."}],
            ]},
            {"match": "SCENARIO-CAIRN-THIRD", "replies": [[{"text": "CHECKPOINT-THIRD after the compression."}]]},
        ],
            "summary": "<state_snapshot>SUMMARY-TEXT: three cairn tasks and a write_todos list are under "
                       "way.</state_snapshot>",
            "usage": {"SCENARIO-CAIRN-RESUME#0": 900000}},
        "steps": [{"prompt": "SCENARIO-CAIRN start the work"},
                  {"prompt": "SCENARIO-CAIRN-RESUME go on", "resume": True},
                  {"prompt": "SCENARIO-CAIRN-THIRD once more", "resume": True}],
    },
}


class Scrubber:
    """Replaces machine paths with neutral ones and cuts the runtime's long prompt text."""

    LONG = 400
    WHOLE = ("args", "output", "result", "response", "prompt_response", "additionalContext", "text_marked")

    def __init__(self, root, home, proj, cairn=None):
        self.pairs = [(proj, "/home/user/project"), (home, "/home/user"), (root, "/tmp/run"),
                      (HERE, "/opt/gemini-harness")]
        if cairn and os.path.isabs(cairn):
            self.pairs.append((cairn, "/usr/local/bin/cairn"))

    def s(self, v):
        for a, b in self.pairs:
            v = v.replace(a, b)
        v = re.sub(r"/tmp/gemini-harness-[a-z0-9_]+", "/tmp/run", v)
        return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", v)

    # values cairn's own redaction takes for secrets (core/redact/fp_test.go walks fixtures/):
    # the fake API key in the hook env, MCP progress tokens, Gemini CLI's 32-hex message id of
    # the session-context message; each is replaced consistently
    def secretish(self, v, key):
        if key == "GEMINI_API_KEY":
            return "(fake key, scrubbed)"
        if key == "progressToken":
            self.tokens = getattr(self, "tokens", {})
            return self.tokens.setdefault(v, "(uuid %d)" % (len(self.tokens) + 1))
        v = re.sub(r"\b[0-9a-f]{32}\b", lambda m: "hex32-" + m.group(0)[:8], v)
        # the id of a tool response message in a checkpoint is "<gemini message uuid>_response"
        v = re.sub(r"\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_response\b", r"\1-response", v)
        # the <session_context> block (date, OS, folders, directory listing) is runtime text; what
        # follows it in the same string (the prompt, in hook llm_request) is kept
        return re.sub(r"(<session_context>\nThis is the Gemini CLI\. We are setting up the context for our chat\.)"
                      r"((?:(?!</session_context>).)*?)(?=</session_context>)",
                      lambda m: m.group(1) + (" [...scrubbed %d chars of runtime text]\n" % len(m.group(2))
                                              if "scrubbed" not in m.group(2) else m.group(2)), v, flags=re.S)

    def value(self, v, key=None, whole=False):
        if isinstance(v, str):
            v = self.secretish(self.s(v), key)
            if (not whole and key not in self.WHOLE and len(v) > self.LONG and "SCENARIO-" not in v
                    and "HOOK-" not in v and "SUMMARY-TEXT" not in v and "<hook_context>cairn" not in v):
                return v[:self.LONG // 3] + " [...scrubbed %d chars of runtime text]" % (len(v) - self.LONG // 3)
            return v
        if isinstance(v, list):
            return [self.value(x, key, whole) for x in v]
        if isinstance(v, dict):
            return {self.s(k): self.value(x, k, whole) for k, x in v.items()}
        return v

    def jsonl(self, src, dst, whole=False):
        with open(src) as f, open(dst, "w") as g:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                g.write(json.dumps(self.value(json.loads(line), whole=whole), ensure_ascii=False,
                                   separators=(",", ":")) + "\n")


def request_digest(rec):
    """One mock request, small: what Gemini CLI sent and what it was answered."""
    b = rec.get("body") or {}
    out = {"method": rec["method"], "path": rec["path"], "answer": rec.get("answer")}
    h = rec.get("headers") or {}
    keep = {k: v for k, v in h.items() if k.lower() in ("user-agent", "x-goog-api-client")
            or k.lower().startswith("x-gemini")}
    if keep:
        out["headers"] = keep
    if isinstance(b, dict) and "contents" in b:
        tools = []
        for t in b.get("tools") or []:
            for fd in t.get("functionDeclarations") or []:
                n = fd.get("name")
                # schemas for the tools a cairn adapter cares about, names for the rest
                if n == "write_todos" or not re.match(r"^[a-z_]+$", n or ""):
                    tools.append({"name": n, "parameters": fd.get("parameters") or fd.get("parametersJsonSchema")})
                else:
                    tools.append(n)
            if not t.get("functionDeclarations"):
                tools.append(t)
        out["tools"] = tools
        out["contents"] = b.get("contents")
        si = b.get("systemInstruction")
        if si is not None:
            out["systemInstruction"] = si
        out["other"] = {k: v for k, v in b.items() if k not in ("contents", "tools", "systemInstruction")}
    elif b:
        out["body"] = b
    return out


def run_setup(proj, env, root, hooks):
    """`cairn setup gemini --scope project` twice in a project whose .gemini/settings.json has other
    keys (the logging hooks among them); setup.txt gets both outputs and the diff between the file
    after run 1 and after run 2."""
    cfg = os.path.join(proj, ".gemini", "settings.json")
    os.makedirs(os.path.dirname(cfg))
    with open(cfg, "w") as f:
        json.dump({"context": {"fileName": ["GEMINI.md", "NOTES.md"]}, "model": {"compressionThreshold": 0.5},
                   "hooks": hooks}, f, indent=2)
        f.write("\n")
    shutil.copy(cfg, os.path.join(root, "project-settings.before.json"))
    log, after = [], []
    for i in (1, 2):
        r = subprocess.run(["cairn", "setup", "gemini", "--scope", "project"], cwd=proj, env=env,
                           capture_output=True, text=True)
        log.append("$ cairn setup gemini --scope project   # run %d, exit %d\n%s%s" % (i, r.returncode, r.stdout, r.stderr))
        after.append(open(cfg).read())
    import difflib
    d = "".join(difflib.unified_diff(after[0].splitlines(True), after[1].splitlines(True),
                                     "settings.json after run 1", "settings.json after run 2"))
    backups = sorted(fn for fn in os.listdir(os.path.dirname(cfg)) if ".cairn-backup" in fn)
    log.append("$ diff (after run 1, after run 2)   # empty: the second run changed nothing\n" + d)
    log.append("$ ls project/.gemini   # backups of files setup changed\n" + "\n".join(backups) + "\n")
    with open(os.path.join(root, "setup.txt"), "a") as f:
        f.write("".join(log))


def run(name, sc, gemini, out, keep, cairn_bin):
    root = tempfile.mkdtemp(prefix="gemini-harness-")
    home = os.path.join(root, "home")
    proj = os.path.join(root, "project")
    ghome = os.path.join(home, ".gemini")
    os.makedirs(ghome)
    os.makedirs(proj)
    hooklog = os.path.join(root, "hooks.jsonl")
    replies = os.path.join(root, "hook-replies.json")
    with open(replies, "w") as f:
        json.dump(sc.get("hook_replies", {}), f)
    hookcmd = "python3 %s %s %s" % (os.path.join(HERE, "hook_log.py"), hooklog, replies)

    reqlog = os.path.join(root, "requests.jsonl")
    logf = open(reqlog, "a")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), mock_api.make_handler(sc["script"], logf))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]

    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("GEMINI") or k.startswith("GOOGLE") or k.startswith("CAIRN")
                   or k.startswith("CLAUDE") or k.startswith("CODEX"))}
    env.update({"HOME": home, "GEMINI_API_KEY": "fake-key-for-mock",
                "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:%d" % port, "NO_COLOR": "1",
                "GEMINI_CLI_NO_RELAUNCH": "true"})
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "hooks": {ev: [{"matcher": "*", "hooks": [{"name": "log-" + ev, "type": "command",
                                                   "command": hookcmd, "timeout": 30000}]}]
                  for ev in HOOK_EVENTS},
    }
    for k, v in (sc.get("settings") or {}).items():
        settings.setdefault(k, {}).update(v)
    mcplog = os.path.join(root, "mcp-log.jsonl")
    if sc.get("setup"):
        # the logging hooks go to the project's settings.json, which cairn's setup must keep
        hooks = settings.pop("hooks")
        bindir = os.path.dirname(os.path.abspath(cairn_bin))
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        r = subprocess.run([cairn_bin, "init"], cwd=proj, env=env, capture_output=True, text=True)
        with open(os.path.join(root, "setup.txt"), "w") as f:
            f.write("$ cairn init\n" + r.stdout + r.stderr)
        run_setup(proj, env, root, hooks)
        # Gemini CLI reads the project's .gemini/settings.json only in a trusted folder, and
        # --skip-trust does not make it read it: settings are loaded before the flag is parsed
        # (it only sets GEMINI_CLI_TRUST_WORKSPACE for the rest of the run). The folder is trusted
        # as the interactive trust dialog leaves it.
        with open(os.path.join(ghome, "trustedFolders.json"), "w") as f:
            json.dump({proj: "TRUST_FOLDER"}, f, indent=2)
    elif sc.get("cairn"):
        bindir = os.path.dirname(os.path.abspath(cairn_bin))
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        r = subprocess.run([cairn_bin, "init"], cwd=proj, env=env, capture_output=True, text=True)
        with open(os.path.join(root, "setup.txt"), "w") as f:
            f.write("$ cairn init\n" + r.stdout + r.stderr)
        settings["mcpServers"] = {"cairn": {
            "command": "python3",
            "args": [os.path.join(HERE, "mcp_shim.py"), mcplog, "--", os.path.abspath(cairn_bin), "mcp"],
            "cwd": proj, "env": {"CAIRN_HARNESS": "1"}, "timeout": 30000, "trust": True}}
    with open(os.path.join(ghome, "settings.json"), "w") as f:
        json.dump(settings, f, indent=2)

    session = None
    steps_out = []
    sessions_seen = []
    common = ["-m", MODEL, "--skip-trust", "--approval-mode", "yolo", "-o", "json"]
    for step in sc["steps"]:
        cmd = ["node", gemini] + common + step.get("extra", [])
        if step.get("resume"):
            cmd += ["--resume", session]
        cmd += ["-p", step["prompt"]]
        r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
        try:
            res = json.loads(r.stdout)
        except ValueError:
            res = {"_stdout": r.stdout[-3000:]}
        this_session = res.get("session_id") if isinstance(res, dict) else None
        if isinstance(res, dict) and "stats" in res:
            res["stats"] = "[dropped: token/tool counters]"
        session = session or this_session
        sessions_seen.append(this_session)
        steps_out.append({"argv": ["gemini"] + cmd[2:], "rc": r.returncode, "session_id": this_session,
                          "result": res, "stderr": r.stderr[-3000:]})
        print("%s: %s rc=%d session=%s" % (name, step["prompt"], r.returncode, this_session), file=sys.stderr)
    srv.shutdown()
    logf.close()

    scrub = Scrubber(root, home, proj, cairn_bin if sc.get("cairn") or sc.get("setup") else None)
    dst = os.path.join(out, name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    with open(os.path.join(dst, "VERSION"), "w") as f:
        f.write(VERSION + "\n")
    # ~/.gemini/tmp/<project short name>/chats/session-*.jsonl (and anything else Gemini CLI wrote there)
    for p in sorted(glob.glob(os.path.join(ghome, "tmp", "**", "*"), recursive=True)):
        if not os.path.isfile(p):
            continue
        rel = os.path.relpath(p, ghome)
        target = os.path.join(dst, "gemini-home", rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if p.endswith(".jsonl"):
            scrub.jsonl(p, target)
        elif p.endswith(".json"):
            with open(p) as f, open(target, "w") as g:
                json.dump(scrub.value(json.load(f)), g, indent=1, ensure_ascii=False)
        else:
            with open(p, errors="replace") as f, open(target, "w") as g:
                g.write(scrub.s(f.read()))
    for extra in ("projects.json", "trustedFolders.json"):
        p = os.path.join(ghome, extra)
        if os.path.exists(p):
            with open(p) as f, open(os.path.join(dst, "gemini-home", extra), "w") as g:
                g.write(scrub.s(f.read()))
    if os.path.exists(hooklog):
        # hook inputs whole except BeforeModel/AfterModel requests (they repeat the system prompt)
        with open(hooklog) as f, open(os.path.join(dst, "hooks.jsonl"), "w") as g:
            for line in f:
                rec = json.loads(line)
                ev = (rec.get("input") or {}).get("hook_event_name")
                whole = ev not in ("BeforeModel", "AfterModel", "BeforeToolSelection")
                g.write(json.dumps(scrub.value(rec, whole=whole), ensure_ascii=False,
                                   separators=(",", ":")) + "\n")
    if os.path.exists(mcplog):
        scrub.jsonl(mcplog, os.path.join(dst, "mcp-log.jsonl"))
    with open(reqlog) as f, open(os.path.join(dst, "requests.jsonl"), "w") as g:
        for line in f:
            g.write(json.dumps(scrub.value(request_digest(json.loads(line))), ensure_ascii=False,
                               separators=(",", ":")) + "\n")
    if sc.get("cairn") or sc.get("setup"):
        for p in glob.glob(os.path.join(proj, "**", "*.jsonl"), recursive=True):
            rel = os.path.relpath(p, proj).replace(os.sep, "_")
            scrub.jsonl(p, os.path.join(dst, "cairn-" + rel))
    if os.path.exists(os.path.join(root, "setup.txt")):
        with open(os.path.join(root, "setup.txt")) as f, open(os.path.join(dst, "setup.txt"), "w") as g:
            g.write(scrub.s(f.read()))
    with open(os.path.join(ghome, "settings.json")) as f, open(os.path.join(dst, "gemini-settings.json"), "w") as g:
        g.write(scrub.s(f.read()))
    if sc.get("setup"):
        for src, name in ((os.path.join(root, "project-settings.before.json"), "project-settings.before.json"),
                          (os.path.join(proj, ".gemini", "settings.json"), "project-settings.json")):
            with open(src) as f, open(os.path.join(dst, name), "w") as g:
                g.write(scrub.s(f.read()))
        st = os.path.join(proj, ".cairn", "gemini")
        for p in sorted(glob.glob(os.path.join(st, "**", "*.json"), recursive=True)):
            rel = os.path.relpath(p, proj).replace(os.sep, "_")
            with open(p) as f, open(os.path.join(dst, "cairn-" + rel), "w") as g:
                g.write(scrub.s(f.read()))
    with open(os.path.join(dst, "steps.json"), "w") as f:
        json.dump(scrub.value({"about": sc["about"], "session": session, "sessions": sessions_seen,
                               "steps": steps_out}), f, indent=2)
    if keep:
        print("kept %s" % root, file=sys.stderr)
    else:
        shutil.rmtree(root, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gemini", default=os.environ.get("GEMINI_BIN", DEFAULT_GEMINI))
    ap.add_argument("--cairn", default=os.environ.get("CAIRN_BIN", "/tmp/gm-cairn"))
    ap.add_argument("--out", default="/work/gemini-fixtures")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    names = a.scenarios or list(SCENARIOS)
    os.makedirs(a.out, exist_ok=True)
    for n in names:
        run(n, SCENARIOS[n], a.gemini, a.out, a.keep, a.cairn)


if __name__ == "__main__":
    main()
