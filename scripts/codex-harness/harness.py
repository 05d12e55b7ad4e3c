#!/usr/bin/env python3
"""Run the real OpenAI Codex CLI offline against mock_api.py and keep scrubbed rollout files.

Usage: harness.py [--codex PATH] [--cairn PATH] [--out DIR] [--keep] [SCENARIO ...]

Each scenario gets a throwaway HOME and CODEX_HOME=$HOME/.codex (config.toml pointing
`model_provider = "mock"` at the mock on 127.0.0.1, hooks.json registering hook_log.py for
every event), a project folder, its own mock server and a list of `codex exec` steps.
Afterwards the rollout files ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl), the hook
inputs, the MCP traffic and a digest of the mock's request log are scrubbed and copied to
OUT/<scenario>/. See README.md.
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

VERSION = "0.171.0"
DEFAULT_CODEX = ("/work/codex-harness-node/node_modules/@openai/codex-linux-x64/vendor/"
                 "x86_64-unknown-linux-musl/bin/codex")
# The hook events 0.171.0 knows (HookEventName in the binary), all registered in hooks.json.
HOOK_EVENTS = ["SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
               "PostToolUse", "PreCompact", "PostCompact", "Stop", "SubagentStart", "SubagentStop"]
MODEL = "mock-model"


def plan(*steps):
    return {"call": "update_plan", "args": {"plan": [{"step": s, "status": st} for s, st in steps]}}


def plan_x(explanation, *steps):
    p = plan(*steps)
    p["args"]["explanation"] = explanation
    return p


def shell(cmd):
    # 0.171.0 offers the unified exec tool exec_command {cmd, ...}; login false keeps PATH (a
    # login shell rereads /etc/profile, and cairn would not be found)
    return {"call": "exec_command", "args": {"cmd": cmd, "login": False, "yield_time_ms": 5000}}


ENV_PROBE = ("env | grep -E '^(CODEX|CAIRN|CLAUDE)' | sort; echo pid=$$ ppid=$PPID")

SCENARIOS = {
    "plan": {
        "about": "update_plan five times (3-step plan; step 1 in_progress; step 1 completed + step 2 "
                 "in_progress; step 2's text changed; steps reordered with one removed), then text.",
        "update_plan": True,
        "script": {"conversations": [
            {"match": "SCENARIO-PLAN", "replies": [
                [plan_x("Three steps.", ("Parse config", "pending"), ("Write store", "pending"),
                        ("Add CLI", "pending"))],
                [plan(("Parse config", "in_progress"), ("Write store", "pending"), ("Add CLI", "pending"))],
                [plan(("Parse config", "completed"), ("Write store", "in_progress"), ("Add CLI", "pending"))],
                [plan_x("Renamed step 2.", ("Parse config", "completed"),
                        ("Write the task store", "in_progress"), ("Add CLI", "pending"))],
                [plan_x("Reordered; Parse config dropped.", ("Add CLI", "pending"),
                        ("Write the task store", "in_progress"))],
                [{"text": "Plan recorded: the store is being written, the CLI comes next."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-PLAN plan the work"}],
    },
    "auto-compact": {
        "about": "update_plan, then a reply reporting more input tokens than "
                 "model_auto_compact_token_limit=20000: Codex compacts (local summarisation request), "
                 "the usage reported after compaction is small, and the turn goes on.",
        "update_plan": True,
        "config_args": ["-c", "model_auto_compact_token_limit=20000"],
        "hook_replies": {"PreCompact": {"systemMessage": "HOOK-PRECOMPACT-SYSTEM-MESSAGE"},
                         "PostCompact": {"systemMessage": "HOOK-POSTCOMPACT-SYSTEM-MESSAGE"},
                         "SessionStart": {"hookSpecificOutput": {
                             "hookEventName": "SessionStart",
                             "additionalContext": "HOOK-SESSIONSTART-CONTEXT"}}},
        "script": {"conversations": [
            {"match": "SCENARIO-COMPACT", "replies": [
                [plan(("Collect data", "in_progress"), ("Summarise", "pending"))],
                [plan(("Collect data", "completed"), ("Summarise", "in_progress"))],
                [{"text": "Not reached: the compaction comes first."}],
            ]},
            # after compaction the summary is the newest user message: the turn goes on from here
            {"match": "SUMMARY-TEXT", "replies": [
                [plan(("Collect data", "completed"), ("Summarise", "completed"))],
                [{"text": "CHECKPOINT-AFTER-COMPACT data collected and summarised."}],
            ]},
            {"match": "SCENARIO-AFTERCOMPACT", "replies": [
                [plan(("Collect data", "completed"), ("Summarise", "completed"), ("Publish", "in_progress"))],
                [{"text": "Resumed after the compaction."}],
            ]},
        ],
            "summary": "SUMMARY-TEXT: a two-step plan (Collect data, Summarise) is under way.",
            "usage": {"SCENARIO-COMPACT#1": 50000, "SCENARIO-COMPACT#0": 1000, "compaction": 500}},
        "steps": [{"prompt": "SCENARIO-COMPACT gather and summarise"},
                  {"prompt": "SCENARIO-AFTERCOMPACT go on", "resume": True}],
    },
    "resume": {
        "about": "run 1: update_plan (3 steps, step 1 in_progress); run 2 `codex exec resume <id>`: "
                 "step 1 completed, step 2 in_progress.",
        "update_plan": True,
        "script": {"conversations": [
            {"match": "SCENARIO-RESUME start", "replies": [
                [plan(("Alpha", "in_progress"), ("Beta", "pending"), ("Gamma", "pending"))],
                [{"text": "Started Alpha."}],
            ]},
            {"match": "SCENARIO-RESUME continue", "replies": [
                [plan(("Alpha", "completed"), ("Beta", "in_progress"), ("Gamma", "pending"))],
                [{"text": "Alpha done, Beta under way."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-RESUME start the job"},
                  {"prompt": "SCENARIO-RESUME continue the job", "resume": True}],
    },
    "fork": {
        "about": "run 1: update_plan; run 2 `codex exec fork <id> PROMPT`: a new session (new rollout "
                 "file) that starts from the first one's history; the fork's plan changes.",
        "update_plan": True,
        "script": {"conversations": [
            {"match": "SCENARIO-FORK start", "replies": [
                [plan(("One", "in_progress"), ("Two", "pending"))],
                [{"text": "Started One."}],
            ]},
            {"match": "SCENARIO-FORK branch", "replies": [
                [plan(("One", "completed"), ("Two", "in_progress"), ("Branch only", "pending"))],
                [{"text": "Forked and moved on."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-FORK start"},
                  {"prompt": "SCENARIO-FORK branch off", "fork": True}],
    },
    "mcp": {
        "about": "cairn registered as [mcp_servers.cairn] (through mcp_shim.py, which logs its "
                 "environment and every JSON-RPC line); the model calls the cairn tools TaskCreate (x2), "
                 "TaskUpdate and TaskList by the names Codex gives them; then a resumed run calls TaskList.",
        "cairn": True,
        "update_plan": True,
        "script": {"conversations": [
            {"match": "SCENARIO-MCP use", "replies": [
                [{"call": "TaskCreate", "namespace": "mcp__cairn",
                  "args": {"subject": "From MCP", "description": "Created through cairn mcp"}}],
                [{"call": "TaskCreate", "namespace": "mcp__cairn", "args": {"subject": "Second"}}],
                [{"call": "TaskUpdate", "namespace": "mcp__cairn", "args": {"taskid": 1, "status": "inprogress"}}],
                [{"call": "TaskList", "namespace": "mcp__cairn", "args": {}}],
                [{"text": "cairn tasks used."}],
            ]},
            {"match": "SCENARIO-MCP continue", "replies": [
                [{"call": "TaskList", "namespace": "mcp__cairn", "args": {}}],
                [{"text": "Back again."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-MCP use cairn"},
                  {"prompt": "SCENARIO-MCP continue", "resume": True}],
    },
    "shell-cli": {
        "about": "the model runs `cairn task create` and an environment probe through the shell tool "
                 "(exec_command); what the command sees is in the function_call_output.",
        "cairn": True,
        "no_mcp": True,
        "script": {"conversations": [
            {"match": "SCENARIO-SHELL", "replies": [
                [shell(ENV_PROBE)],
                [shell("cairn task create 'x' && cairn task list")],
                [{"text": "Shell used."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-SHELL run cairn"}],
    },
    "hooks": {
        "about": "every hook event registered; SessionStart (startup, resume, clear? compact), "
                 "UserPromptSubmit, PreToolUse/PostToolUse around a shell call, PreCompact/PostCompact "
                 "(manual /compact is TUI-only; auto compaction here), Stop, SessionEnd. The hooks answer "
                 "with additionalContext / systemMessage markers; the request digest shows which reach "
                 "the model.",
        "update_plan": True,
        "config_args": ["-c", "model_auto_compact_token_limit=20000"],
        "hook_replies": {
            "SessionStart": {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                    "additionalContext": "HOOK-SESSIONSTART-CONTEXT"}},
            "SessionStart:resume": {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                           "additionalContext": "HOOK-SESSIONSTART-RESUME-CONTEXT"}},
            "SessionStart:compact": {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                            "additionalContext": "HOOK-SESSIONSTART-COMPACT-CONTEXT"}},
            "UserPromptSubmit": {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                        "additionalContext": "HOOK-USERPROMPT-CONTEXT"}},
            "PreCompact": {"systemMessage": "HOOK-PRECOMPACT-SYSTEM-MESSAGE"},
            "PostCompact": {"systemMessage": "HOOK-POSTCOMPACT-SYSTEM-MESSAGE"},
        },
        "script": {"conversations": [
            {"match": "SCENARIO-HOOKS start", "replies": [
                [shell("echo hook-probe")],
                [plan(("Hook step", "in_progress"))],
                [{"text": "Hooks seen."}],
            ]},
            {"match": "SCENARIO-HOOKS resume", "replies": [
                [plan(("Hook step", "completed"))],
                [{"text": "Not reached: the compaction comes first."}],
            ]},
            {"match": "SUMMARY-TEXT", "replies": [
                [{"text": "Resumed after compaction."}],
            ]},
            {"match": "SCENARIO-HOOKS fork", "replies": [
                [{"text": "Forked."}],
            ]},
        ], "summary": "SUMMARY-TEXT: hooks scenario.",
            "usage": {"SCENARIO-HOOKS resume#0": 50000, "compaction": 500}},
        "steps": [{"prompt": "SCENARIO-HOOKS start"},
                  {"prompt": "SCENARIO-HOOKS resume", "resume": True},
                  {"prompt": "SCENARIO-HOOKS fork", "fork": True}],
    },
    "clear": {
        "about": "the interactive TUI (run in a pseudo-terminal; `codex exec` has no clear): a prompt, "
                 "`/clear` (a new session: SessionStart source clear), a prompt, `/compact` (PreCompact/"
                 "PostCompact trigger manual; the PreCompact hook answers a systemMessage), a last prompt.",
        "tui": True,
        "update_plan": True,
        "hook_replies": {"PreCompact": {"systemMessage": "HOOK-PRECOMPACT-SYSTEM-MESSAGE"},
                         "SessionStart": {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                                 "additionalContext": "HOOK-SESSIONSTART-CONTEXT"}}},
        "script": {"conversations": [
            {"match": "SCENARIO-CLEAR start", "replies": [
                [plan(("Before clear", "in_progress"))],
                [{"text": "Started before the clear."}],
            ]},
            {"match": "SCENARIO-CLEAR after", "replies": [
                [plan(("After clear", "in_progress"))],
                [{"text": "A new session after the clear."}],
            ]},
            {"match": "SCENARIO-CLEAR last", "replies": [
                [{"text": "After the manual compaction."}],
            ]},
        ], "summary": "SUMMARY-TEXT: after clear, one step in progress."},
        "steps": [{"prompt": "SCENARIO-CLEAR start"}, {"prompt": "/clear", "slash": True},
                  {"prompt": "SCENARIO-CLEAR after the clear"}, {"prompt": "/compact", "slash": True},
                  {"prompt": "SCENARIO-CLEAR last prompt"}],
    },
    "hooks-untrusted": {
        "about": "hooks.json in CODEX_HOME as in `hooks`, but `codex exec` without "
                 "--dangerously-bypass-hook-trust and no trust recorded (/hooks in the TUI): do hooks run?",
        "no_hook_bypass": True,
        "hook_replies": {"SessionStart": {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                                 "additionalContext": "HOOK-SESSIONSTART-CONTEXT"}}},
        "script": {"conversations": [{"match": "SCENARIO-UNTRUSTED", "replies": [[{"text": "No hooks?"}]]}]},
        "steps": [{"prompt": "SCENARIO-UNTRUSTED start"}],
    },
    "update-plan-offered": {
        "about": "is update_plan in the request's tools for a non-OpenAI model name? run 1 without "
                 "tools.update_plan.enabled, run 2 with `-c tools.update_plan.enabled=true` (see requests.jsonl).",
        "script": {"conversations": [
            {"match": "SCENARIO-OFFER", "replies": [
                [plan(("Try", "in_progress"))],
                [{"text": "Tried."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-OFFER without the switch"},
                  {"prompt": "SCENARIO-OFFER with the switch", "extra": ["-c", "tools.update_plan.enabled=true"]}],
    },
}


class Scrubber:
    """Replaces machine paths with neutral ones and cuts the runtime's long prompt text."""

    LONG = 400
    WHOLE = ("arguments", "output", "result", "message", "last_agent_message", "x-codex-turn-metadata")

    def __init__(self, root, home, proj, cairn=None):
        self.pairs = [(proj, "/home/user/project"), (home, "/home/user"), (root, "/tmp/run"),
                      (HERE, "/opt/codex-harness")]
        if cairn and os.path.isabs(cairn):
            self.pairs.append((cairn, "/usr/local/bin/cairn"))

    def s(self, v):
        for a, b in self.pairs:
            v = v.replace(a, b)
        # the TUI can overdraw the first letter of the temporary root ("/tmp/odex-harness-…")
        return re.sub(r"/tmp/c?odex-harness-[a-z0-9_]+", "/tmp/run", v)

    def value(self, v, key=None, whole=False):
        if isinstance(v, str):
            v = self.s(v)
            if not whole and key not in self.WHOLE and len(v) > self.LONG and "SCENARIO-" not in v:
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
    """One mock request, small: what Codex sent and what it was answered."""
    b = rec.get("body") or {}
    out = {"method": rec["method"], "path": rec["path"], "answer": rec.get("answer")}
    h = rec.get("headers") or {}
    for k in ("session-id", "thread-id", "x-codex-turn-metadata", "x-codex-window-id", "originator"):
        if k in h:
            out.setdefault("headers", {})[k] = h[k]
    if isinstance(b, dict) and "input" in b:
        out["model"] = b.get("model")
        tools = []
        for t in b.get("tools") or []:
            if t.get("type") == "namespace" and t.get("name") == "multi_agent_v1":
                tools.append({"namespace": t.get("name"), "tools": [x.get("name") for x in t.get("tools") or []]})
            elif t.get("type") == "namespace":
                tools.append({"namespace": t.get("name"), "description": t.get("description"),
                              "tools": [{"name": x.get("name"), "parameters": x.get("parameters")}
                                        for x in t.get("tools") or []]})
            else:
                tools.append(t.get("name") or t.get("type"))
        out["tools"] = tools
        inp = []
        for it in b.get("input") or []:
            d = {k: v for k, v in it.items() if k not in ("id",)}
            inp.append(d)
        out["input"] = inp
        out["other"] = {k: v for k, v in b.items() if k not in ("input", "tools", "instructions")}
        if "instructions" in b:
            out["instructions"] = b["instructions"]
    elif b:
        out["body"] = b
    return out


ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\\\)|\x1b[()][A-Z0-9]|\x1b[=>78]")


def run_tui(argv, cwd, env, steps, wait=8.0):
    """Runs the interactive TUI in a pseudo-terminal and types the steps' prompts into it."""
    import fcntl
    import pty
    import select
    import struct
    import termios
    import time
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    buf = bytearray()

    def pump(t):
        end = time.time() + t
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.2)
            if not r:
                continue
            try:
                d = os.read(fd, 65536)
            except OSError:
                return
            buf.extend(d)
            if b"\x1b[6n" in d:  # cursor position query
                os.write(fd, b"\x1b[1;1R")

    def typ(text):
        for c in text:
            os.write(fd, c.encode())
            time.sleep(0.03)
        time.sleep(0.5)
        os.write(fd, b"\r")

    pump(wait)
    for step in steps:
        typ(step["prompt"])
        pump(wait if not step.get("slash") else 5)
    for _ in range(2):
        os.write(fd, b"\x03")
        pump(2)
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    os.waitpid(pid, 0)
    text = ANSI.sub("", buf.decode("utf-8", "replace")).replace("\r", "")
    return text


def run(name, sc, codex, out, keep, cairn_bin):
    root = tempfile.mkdtemp(prefix="codex-harness-")
    home = os.path.join(root, "home")
    proj = os.path.join(root, "project")
    chome = os.path.join(home, ".codex")
    os.makedirs(chome)
    os.makedirs(proj)
    hooklog = os.path.join(root, "hooks.jsonl")
    replies = os.path.join(root, "hook-replies.json")
    with open(replies, "w") as f:
        json.dump(sc.get("hook_replies", {}), f)
    hookcmd = "python3 %s %s %s" % (os.path.join(HERE, "hook_log.py"), hooklog, replies)
    hooks = {"hooks": {ev: [{"hooks": [{"type": "command", "command": hookcmd, "timeout": 30}]}]
                       for ev in HOOK_EVENTS}}
    with open(os.path.join(chome, "hooks.json"), "w") as f:
        json.dump(hooks, f, indent=2)

    reqlog = os.path.join(root, "requests.jsonl")
    logf = open(reqlog, "a")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), mock_api.make_handler(sc["script"], logf))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]

    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("CODEX") or k.startswith("CAIRN") or k.startswith("CLAUDE")
                   or k.startswith("OPENAI"))}
    env.update({"HOME": home, "CODEX_HOME": chome, "MOCK_API_KEY": "test", "NO_COLOR": "1"})
    mcplog = os.path.join(root, "mcp-log.jsonl")
    config = ['model = "%s"' % MODEL, 'model_provider = "mock"', 'check_for_update_on_startup = false', '']
    if sc.get("update_plan"):
        config += ["[tools.update_plan]", "enabled = true", ""]
    config += ["[model_providers.mock]", 'name = "mock"', 'base_url = "http://127.0.0.1:%d/v1"' % port,
               'wire_api = "responses"', 'env_key = "MOCK_API_KEY"', "request_max_retries = 0",
               "stream_max_retries = 0", ""]
    if sc.get("cairn"):
        bindir = os.path.dirname(os.path.abspath(cairn_bin))
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        r = subprocess.run([cairn_bin, "init"], cwd=proj, env=env, capture_output=True, text=True)
        with open(os.path.join(root, "setup.txt"), "w") as f:
            f.write("$ cairn init\n" + r.stdout + r.stderr)
        if not sc.get("no_mcp"):
            config += ["[mcp_servers.cairn]", 'command = "python3"',
                       "args = %s" % json.dumps([os.path.join(HERE, "mcp_shim.py"), mcplog, "--",
                                                 os.path.abspath(cairn_bin), "mcp"]),
                       'cwd = "%s"' % proj, 'env = { CAIRN_HARNESS = "1" }', "startup_timeout_sec = 30", ""]
    with open(os.path.join(chome, "config.toml"), "w") as f:
        f.write("\n".join(config))

    session = None
    steps_out = []
    sessions_seen = []
    base = [codex, "exec"]
    common = ["--skip-git-repo-check", "--json"] + \
        ([] if sc.get("no_hook_bypass") else ["--dangerously-bypass-hook-trust"]) + \
        ["--dangerously-bypass-approvals-and-sandbox"] + sc.get("config_args", [])
    if sc.get("tui"):
        with open(os.path.join(chome, "config.toml"), "a") as f:
            f.write('\n[projects."%s"]\ntrust_level = "trusted"\n' % proj)
        env["TERM"] = "xterm-256color"
        argv = [codex, "--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox"]
        screen = run_tui(argv, proj, env, sc["steps"])
        with open(os.path.join(root, "tui-screen.txt"), "w") as f:
            f.write(screen[-20000:])
        steps_out.append({"argv": ["codex"] + argv[1:], "typed": [st["prompt"] for st in sc["steps"]],
                          "screen_tail": screen[-1500:]})
        print("%s: tui steps done" % name, file=sys.stderr)
    for step in [] if sc.get("tui") else sc["steps"]:
        if step.get("resume"):
            cmd = base + ["resume"] + common + step.get("extra", []) + [session, step["prompt"]]
        elif step.get("fork"):
            cmd = base + ["fork"] + common + step.get("extra", []) + [session, step["prompt"]]
        else:
            cmd = base + common + step.get("extra", []) + [step["prompt"]]
        r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
        events = []
        this_session = None
        for line in r.stdout.splitlines():
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            events.append(ev)
            if ev.get("type") == "thread.started":
                this_session = ev.get("thread_id")
        session = session or this_session
        sessions_seen.append(this_session)
        steps_out.append({"argv": ["codex"] + cmd[1:], "rc": r.returncode, "thread_id": this_session,
                          "events": events, "stderr": r.stderr[-3000:]})
        print("%s: %s rc=%d thread=%s" % (name, step["prompt"], r.returncode, this_session), file=sys.stderr)
    srv.shutdown()
    logf.close()

    scrub = Scrubber(root, home, proj, cairn_bin if sc.get("cairn") else None)
    dst = os.path.join(out, name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    with open(os.path.join(dst, "VERSION"), "w") as f:
        f.write(VERSION + "\n")
    for p in sorted(glob.glob(os.path.join(chome, "sessions", "**", "*.jsonl"), recursive=True) +
                    glob.glob(os.path.join(chome, "archived_sessions", "**", "*.jsonl"), recursive=True)):
        rel = os.path.relpath(p, chome)
        target = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        scrub.jsonl(p, target)
    if os.path.exists(hooklog):
        scrub.jsonl(hooklog, os.path.join(dst, "hooks.jsonl"), whole=True)
    if os.path.exists(mcplog):
        scrub.jsonl(mcplog, os.path.join(dst, "mcp-log.jsonl"))
    # the request log, digested (tools by name, MCP tool schemas, every input item)
    with open(reqlog) as f, open(os.path.join(dst, "requests.jsonl"), "w") as g:
        for line in f:
            g.write(json.dumps(scrub.value(request_digest(json.loads(line))), ensure_ascii=False,
                               separators=(",", ":")) + "\n")
    if sc.get("cairn"):
        for p in glob.glob(os.path.join(proj, "**", "*.jsonl"), recursive=True):
            if "sessions" in p or os.path.dirname(p) == proj:
                rel = os.path.relpath(p, proj).replace(os.sep, "_")
                scrub.jsonl(p, os.path.join(dst, "cairn-" + rel))
    for extra in ("setup.txt", "tui-screen.txt"):
        if os.path.exists(os.path.join(root, extra)):
            with open(os.path.join(root, extra)) as f, open(os.path.join(dst, extra), "w") as g:
                g.write(scrub.s(f.read()))
    for conf in ("config.toml", "hooks.json"):
        with open(os.path.join(chome, conf)) as f, open(os.path.join(dst, "codex-home-" + conf), "w") as g:
            g.write(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", scrub.s(f.read())))
    with open(os.path.join(dst, "steps.json"), "w") as f:
        json.dump(scrub.value({"about": sc["about"], "session": session, "sessions": sessions_seen,
                               "steps": steps_out}), f, indent=2)
    if keep:
        print("kept %s" % root, file=sys.stderr)
    else:
        shutil.rmtree(root, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--codex", default=os.environ.get("CODEX_BIN", DEFAULT_CODEX))
    ap.add_argument("--cairn", default=os.environ.get("CAIRN_BIN", "/tmp/cairn-codex/cairn"))
    ap.add_argument("--out", default="/work/codex-fixtures")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    names = a.scenarios or list(SCENARIOS)
    os.makedirs(a.out, exist_ok=True)
    for n in names:
        run(n, SCENARIOS[n], a.codex, a.out, a.keep, a.cairn)


if __name__ == "__main__":
    main()
