#!/usr/bin/env python3
"""Run the real Claude Code offline against mock_api.py and keep scrubbed transcripts.

Usage: harness.py [--claude PATH] [--out DIR] [--keep] [SCENARIO ...]

Each scenario gets a throwaway HOME (HOME, CLAUDE_CONFIG_DIR=$HOME/.claude), a project folder,
its own mock server and a list of `claude -p` invocations. Afterwards the transcripts
($CLAUDE_CONFIG_DIR/projects/*/*.jsonl and subagents/), the task store (tasks/<session>/*.json),
the hook payloads and the mock's request log are scrubbed and copied to OUT/<scenario>/.
See README.md.
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

DEFAULT_CLAUDE = "/work/claude-harness-node/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
HOOK_EVENTS = ["SessionStart", "PreCompact", "PostCompact", "UserPromptSubmit", "PostToolUse",
               "SubagentStop", "Stop", "SessionEnd"]


def tc(subject, desc, active=None):
    d = {"subject": subject, "description": desc}
    if active:
        d["activeForm"] = active
    return {"tool": "TaskCreate", "input": d}


def tu(task_id, **kw):
    d = {"taskId": task_id}
    d.update(kw)
    return {"tool": "TaskUpdate", "input": d}


# A scenario: env extras, the mock script, and the steps. A step is a prompt; "resume" reuses
# the session id of the first step.
SCENARIOS = {
    "compact": {
        "about": "4 tasks created; 1 update before a manual /compact, 3 updates after it (resumed).",
        "script": {"conversations": [
            {"match": "SCENARIO-A plan", "replies": [
                [{"text": "I'll plan the work as tasks."}, tc("Parse config", "Read cairn.toml and validate it", "Parsing config")],
                [tc("Write store", "Persist tasks to disk", "Writing store")],
                [tc("Add CLI", "Wire the task commands", "Adding CLI")],
                [tc("Document", "Describe the commands in the README", "Documenting")],
                [tu("1", status="in_progress")],
                [{"text": "Four tasks planned; the first is in progress."}],
            ]},
            {"match": "SCENARIO-A continue", "replies": [
                [tu("1", status="completed")],
                [tu("2", status="in_progress", owner="main")],
                [tu("2", status="completed")],
                [{"tool": "TaskList", "input": {}}],
                [{"text": "Two done, two to go."}],
            ]},
        ], "summary": "Summary: four tasks were planned (Parse config, Write store, Add CLI, Document); Parse config is in progress."},
        "steps": [{"prompt": "SCENARIO-A plan the work"},
                  {"prompt": "/compact", "resume": True},
                  {"prompt": "SCENARIO-A continue with the work", "resume": True}],
    },
    "parallel": {
        "about": "3 TaskCreate tool_use blocks in one reply, then 2 TaskUpdate blocks in one reply.",
        "script": {"conversations": [
            {"match": "SCENARIO-B", "replies": [
                [{"text": "Three tasks at once."}, tc("Lint", "Run the linters"), tc("Test", "Run the tests", "Testing"),
                 tc("Release", "Tag the release")],
                [tu("1", status="completed"), tu("2", status="in_progress")],
                [{"tool": "TaskGet", "input": {"taskId": "2"}}],
                [{"text": "Lint done, tests running."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-B do three things"}],
    },
    "subagent": {
        "about": "The main agent creates a task and runs a foreground general-purpose subagent (Agent tool) that creates and completes a task of its own.",
        "script": {"conversations": [
            {"match": "SCENARIO-C", "replies": [
                [tc("Investigate", "Find where tasks are stored", "Investigating")],
                [{"tool": "Agent", "input": {"description": "Research task storage",
                                              "prompt": "SUBAGENT-C look for the task store and report",
                                              "subagent_type": "general-purpose", "run_in_background": False}}],
                [tu("1", status="completed")],
                [{"text": "The subagent reported back."}],
            ]},
            {"match": "SUBAGENT-C", "replies": [
                [tc("Sub: scan files", "Scan the project for task files")],
                [tu("2", status="completed")],
                [{"text": "The task store lives under tasks/<session-id>/."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-C delegate some research"}],
    },
    "resume": {
        "about": "2 tasks in the first run; the session is resumed with --resume, one task completed, one created.",
        "script": {"conversations": [
            {"match": "SCENARIO-D start", "replies": [
                [tc("Alpha", "First piece")],
                [tc("Beta", "Second piece")],
                [tu("1", status="in_progress")],
                [{"text": "Started."}],
            ]},
            {"match": "SCENARIO-D resume", "replies": [
                [tu("1", status="completed")],
                [tc("Gamma", "Third piece", "Doing gamma")],
                [tu("3", addBlockedBy=["2"])],
                [{"text": "Resumed and updated."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-D start the job"},
                  {"prompt": "SCENARIO-D resume the job", "resume": True}],
    },
    "todowrite": {
        "about": "TodoWrite (the task tools switched off): a list of 3 todos written twice.",
        "todo": True,
        "script": {"conversations": [
            {"match": "SCENARIO-E", "replies": [
                [{"tool": "TodoWrite", "input": {"todos": [
                    {"content": "Read spec", "status": "in_progress", "activeForm": "Reading spec"},
                    {"content": "Write code", "status": "pending", "activeForm": "Writing code"},
                    {"content": "Ship", "status": "pending", "activeForm": "Shipping"}]}}],
                [{"tool": "TodoWrite", "input": {"todos": [
                    {"content": "Read spec", "status": "completed", "activeForm": "Reading spec"},
                    {"content": "Write code", "status": "in_progress", "activeForm": "Writing code"},
                    {"content": "Ship", "status": "pending", "activeForm": "Shipping"}]}}],
                [{"text": "Todos written."}],
            ]},
        ]},
        "steps": [{"prompt": "SCENARIO-E keep a todo list"}],
    },
    "mixed": {
        "about": "One session through everything at once: 3 TaskCreate blocks in one reply and a 4th, a foreground subagent that creates and completes task 5, a deletion, a manual /compact, more updates after it, a wrong turn (task 7, task 4 started) undone by a rewind (--resume-session-at the reply before it), a new task after the rewind (Claude's id 8), a second /compact and a last update.",
        "script": {"conversations": [
            {"match": "SCENARIO-H plan", "replies": [
                [{"text": "Planning the release."}, tc("Bump version", "Set the version in main.go", "Bumping version"),
                 tc("Update deps", "go get -u and tidy"), tc("Drop old flag", "Remove --legacy")],
                [tc("Write changelog", "Collect the entries since the last tag", "Writing changelog")],
                [tu("1", status="in_progress")],
                [{"tool": "Agent", "input": {"description": "Audit dependencies",
                                              "prompt": "SUBAGENT-H audit the dependencies and report",
                                              "subagent_type": "general-purpose", "run_in_background": False}}],
                [tu("1", status="completed")],
                [tu("3", status="deleted")],
                [{"text": "CHECKPOINT-H1 planned."}],
            ]},
            {"match": "SUBAGENT-H", "replies": [
                [tc("Sub: audit deps", "List outdated modules")],
                [tu("5", status="completed")],
                [{"text": "Two modules are outdated."}],
            ]},
            {"match": "SCENARIO-H continue", "replies": [
                [tc("Tag release", "git tag the version", "Tagging")],
                [tu("2", status="in_progress", owner="main")],
                [tu("6", addBlockedBy=["2"])],
                [{"text": "CHECKPOINT-H2 continued."}],
            ]},
            {"match": "SCENARIO-H wrong", "replies": [
                [tc("Mistake", "A task that the rewind takes back")],
                [tu("4", status="in_progress")],
                [{"text": "CHECKPOINT-H3 wrong turn."}],
            ]},
            {"match": "SCENARIO-H redo", "replies": [
                [tu("2", status="completed")],
                [tc("Announce", "Post the release notes", "Announcing")],
                [{"text": "CHECKPOINT-H4 redone."}],
            ]},
            {"match": "SCENARIO-H finish", "replies": [
                [tu("6", status="completed")],
                [{"text": "Finished."}],
            ]},
        ], "summary": "Summary: a release is being prepared as tasks (Bump version done, Update deps, Write changelog, Tag release, Announce)."},
        "steps": [{"prompt": "SCENARIO-H plan the release"},
                  {"prompt": "/compact", "resume": True},
                  {"prompt": "SCENARIO-H continue the release", "resume": True},
                  {"prompt": "SCENARIO-H wrong turn", "resume": True},
                  {"prompt": "SCENARIO-H redo after the rewind", "resume": True, "rewind_to": "CHECKPOINT-H2"},
                  {"prompt": "/compact", "resume": True},
                  {"prompt": "SCENARIO-H finish the release", "resume": True}],
    },
    "mcp": {
        "about": "cairn registered with `cairn setup claude-code --scope local`; the model calls mcp__cairn__TaskCreate (x2), mcp__cairn__TaskUpdate and mcp__cairn__TaskList; then /compact and a resumed prompt, so cairn's SessionStart (compact, resume) and PreCompact hooks fire.",
        "cairn": True,
        "script": {"conversations": [
            {"match": "SCENARIO-F use", "replies": [
                # MCP tools are deferred: load them first (the server may also still be connecting
                # when the first request goes out, and a direct call then finds no such tool)
                [{"tool": "ToolSearch", "input": {"query": "select:mcp__cairn__TaskCreate,mcp__cairn__TaskUpdate,mcp__cairn__TaskList"}}],
                [{"tool": "mcp__cairn__TaskCreate", "input": {"subject": "From MCP", "description": "Created through cairn mcp"}}],
                [{"tool": "mcp__cairn__TaskCreate", "input": {"subject": "Second"}}],
                [{"tool": "mcp__cairn__TaskUpdate", "input": {"taskid": 1, "status": "inprogress"}}],
                [{"tool": "mcp__cairn__TaskList", "input": {}}],
                [{"text": "cairn tasks used."}],
            ]},
            {"match": "SCENARIO-F continue", "replies": [
                [{"tool": "mcp__cairn__TaskList", "input": {}}],
                [{"text": "Back after compaction."}],
            ]},
        ], "summary": "Summary: two cairn tasks were created; task 1 is in progress."},
        "steps": [{"prompt": "SCENARIO-F use cairn"},
                  {"prompt": "/compact", "resume": True},
                  {"prompt": "SCENARIO-F continue", "resume": True}],
    },
    "plugin": {
        "about": "cairn as a plugin folder (`cairn setup claude-code --plugin DIR`, run with --plugin-dir): its MCP tools and its hooks.",
        "cairn": True,
        "plugin": True,
        "script": {"conversations": [
            {"match": "SCENARIO-G use", "replies": [
                [{"tool": "mcp__plugin_cairn_cairn__TaskCreate", "input": {"subject": "From the plugin"}}],
                [{"tool": "mcp__plugin_cairn_cairn__TaskList", "input": {}}],
                [{"text": "Plugin tools used."}],
            ]},
        ], "summary": "Summary: one cairn task was created through the plugin."},
        "steps": [{"prompt": "SCENARIO-G use the plugin"},
                  {"prompt": "/compact", "resume": True}],
    },
}


def ts(*names):
    """ToolSearch loading cairn's deferred MCP tools (mcp__cairn__NAME)."""
    return {"tool": "ToolSearch", "input": {"query": "select:" + ",".join("mcp__cairn__" + n for n in names)}}


def mc(subject, desc=None):
    d = {"subject": subject}
    if desc:
        d["description"] = desc
    return {"tool": "mcp__cairn__TaskCreate", "input": d}


def mu(taskid, status):
    return {"tool": "mcp__cairn__TaskUpdate", "input": {"taskid": taskid, "status": status}}


ML = {"tool": "mcp__cairn__TaskList", "input": {}}
ALL = ("TaskCreate", "TaskUpdate", "TaskList")


def bash(command, description):
    return {"tool": "Bash", "input": {"command": command, "description": description}}


# Session scenarios (2.1.332): every hook event logged with its environment (hook_log.py --env),
# cairn's MCP server behind mcp_shim.py, the cairn workspace's sessions/ kept. A step is a `claude
# -p` call ("prompt"), a stream-json process fed several user messages ("stream"), or stream-json
# processes run side by side, a message to each in turn ("together"). "resume" names an earlier
# step ("name") whose session is resumed; "fork" adds --fork-session.
TRACE = {
    "fork": {
        "about": "Session A: 3 mcp__cairn__TaskCreate, mcp__cairn__TaskUpdate 1 inprogress. Then `--resume A --fork-session` (new process): mcp__cairn__TaskUpdate 2 completed, 1 TaskCreate, TaskList. Then `--resume A` (not forked): 1 TaskCreate, TaskList.",
        "script": {"conversations": [
            {"match": "FORK-A start", "replies": [
                [ts(*ALL)], [mc("One", "first")], [mc("Two")], [mc("Three")], [mu(1, "inprogress")],
                [{"text": "Session A planned."}]]},
            {"match": "FORK-B forked", "replies": [
                [ts(*ALL)], [mu(2, "completed")], [mc("Forked four")], [ML], [{"text": "Fork done."}]]},
            {"match": "FORK-C resumed", "replies": [
                [ts(*ALL)], [mc("Resumed four")], [ML], [{"text": "Resumed A."}]]},
        ]},
        "steps": [{"name": "A", "prompt": "FORK-A start the plan"},
                  {"name": "B", "prompt": "FORK-B forked session", "resume": "A", "fork": True},
                  {"name": "C", "prompt": "FORK-C resumed without fork", "resume": "A"}],
    },
    "clear-live": {
        "about": "One stream-json process: turn 1 creates 2 tasks (mcp__cairn__TaskCreate); `/clear` as a user message; turn 2 calls mcp__cairn__TaskList, mcp__cairn__TaskCreate, then Bash (cairn on PATH) printing CLAUDE_CODE_SESSION_ID and `cairn task list`.",
        "script": {"conversations": [
            {"match": "CLEAR-1", "replies": [[ts(*ALL)], [mc("Before clear 1")], [mc("Before clear 2")],
                                             [{"text": "Two tasks before /clear."}]]},
            {"match": "CLEAR-2", "replies": [[ts(*ALL)], [ML], [mc("After clear")],
                                             [bash("echo CLAUDE_CODE_SESSION_ID=$CLAUDE_CODE_SESSION_ID; cairn task list",
                                                   "Session id and cairn tasks as the shell sees them")],
                                             [{"text": "After /clear."}]]},
        ]},
        "path_cairn": True,
        "steps": [{"name": "live", "stream": ["CLEAR-1 create two tasks", "/clear", "CLEAR-2 list and create"]}],
    },
    "compact-live": {
        "about": "One stream-json process: 2 mcp__cairn__TaskCreate and a TaskUpdate; `/compact` as a user message; a turn calling mcp__cairn__TaskList.",
        "script": {"conversations": [
            {"match": "COMPACT-1", "replies": [[ts(*ALL)], [mc("Kept 1")], [mc("Kept 2")], [mu(1, "inprogress")],
                                               [{"text": "Planned before /compact."}]]},
            {"match": "COMPACT-2", "replies": [[ts(*ALL)], [ML], [{"text": "Listed after /compact."}]]},
        ], "summary": "Summary: two cairn tasks (Kept 1 in progress, Kept 2)."},
        "steps": [{"name": "live", "stream": ["COMPACT-1 plan", "/compact", "COMPACT-2 list"]}],
    },
    "mixed-tools": {
        "about": "CLAUDE_CODE_ENABLE_TODO_TOOLS=1, stream-json: mcp__cairn__TaskCreate once, the built-in TaskCreate once, the built-in TaskUpdate of task 7 (no such task), `/compact`, then mcp__cairn__TaskList and the built-in TaskList.",
        "script": {"conversations": [
            {"match": "MIXED-1", "replies": [[ts(*ALL)], [mc("Cairn task")], [tc("Builtin task", "Claude's own store")],
                                             [tu("7", status="completed")], [{"text": "Both kinds used."}]]},
            {"match": "MIXED-2", "replies": [[ts(*ALL)], [ML], [{"tool": "TaskList", "input": {}}],
                                             [{"text": "Listed both."}]]},
        ], "summary": "Summary: one cairn task (Cairn task) and one built-in task (Builtin task)."},
        "steps": [{"name": "live", "stream": ["MIXED-1 use both task tools", "/compact", "MIXED-2 list both"]}],
    },
    "shell-cli": {
        "about": "stream-json, the cairn binary's folder on PATH: Bash `env | grep` for CLAUDE*/CAIRN*, Bash `cairn task create 'from the shell'`, mcp__cairn__TaskCreate, mcp__cairn__TaskList; `/compact`; mcp__cairn__TaskList and Bash `cairn task list`.",
        "path_cairn": True,
        "script": {"conversations": [
            {"match": "SHELL-1", "replies": [
                [bash("env | grep -E '^(CLAUDE|CAIRN)' | sed -E 's/^([A-Z_]*(TOKEN|KEY|SECRET)[A-Z_]*)=.*/\\1=[redacted]/' | sort",
                      "Show the agent environment")],
                [bash("cairn task create 'from the shell'", "Create a cairn task from the shell")],
                [ts(*ALL)], [mc("from MCP")], [ML], [{"text": "Shell and MCP tasks."}]]},
            {"match": "SHELL-2", "replies": [[ts(*ALL)], [ML], [bash("cairn task list", "List cairn tasks from the shell")],
                                             [{"text": "Listed after /compact."}]]},
        ], "summary": "Summary: a cairn task from the shell and one from MCP."},
        "steps": [{"name": "live", "stream": ["SHELL-1 shell and mcp", "/compact", "SHELL-2 list"]}],
    },
    "two-sessions": {
        "about": "Two stream-json claude processes at once in one project, turns sent alternately: each creates a task through mcp__cairn__TaskCreate, then another and lists.",
        "script": {"conversations": [
            {"match": "TWO-A one", "replies": [[ts(*ALL)], [mc("A first")], [{"text": "A one."}]]},
            {"match": "TWO-A two", "replies": [[ts(*ALL)], [mc("A second")], [ML], [{"text": "A two."}]]},
            {"match": "TWO-B one", "replies": [[ts(*ALL)], [mc("B first")], [{"text": "B one."}]]},
            {"match": "TWO-B two", "replies": [[ts(*ALL)], [mc("B second")], [ML], [{"text": "B two."}]]},
        ]},
        "steps": [{"together": [{"name": "A", "stream": ["TWO-A one", "TWO-A two"]},
                                {"name": "B", "stream": ["TWO-B one", "TWO-B two"]}]}],
    },
}
for _n, _sc in TRACE.items():
    _sc.update(cairn=True, trace=True)
SCENARIOS.update(TRACE)


class Scrubber:
    """Replaces machine paths with neutral ones and cuts the runtime's long prompt text."""

    LONG = 400

    def __init__(self, root, home, proj, cairn=None, claude=None):
        self.pairs = [(proj, "/home/user/project"), (home, "/home/user"), (root, "/tmp/run"),
                      (HERE, "/opt/claude-harness")]
        if claude and os.path.isabs(claude):
            self.pairs.insert(0, (claude, "/usr/local/bin/claude"))
        if cairn and os.path.isabs(cairn):
            self.pairs.append((cairn, "/usr/local/bin/cairn"))
        self.dash = [(re.sub(r"[^A-Za-z0-9]", "-", proj), "-home-user-project")]

    def s(self, v):
        for a, b in self.pairs + self.dash:
            v = v.replace(a, b)
        # Claude Code's per-user runtime folder and its messaging sockets name this machine's uid and pids
        v = re.sub(r"/tmp/claude-[0-9]+/", "/tmp/run/claude-uid/", v)
        v = re.sub(r"/tmp/cc-socks/[0-9]+\.sock", "/tmp/run/cc-socks/PID.sock", v)
        # a secret-looking value in an environment listing (CLAUDE_CODE_MESSAGING_TOKEN=...)
        return re.sub(r"((?:TOKEN|KEY|SECRET)[A-Z_]*=)[0-9A-Za-z_-]{12,}", r"\1[redacted]", v)

    def value(self, v, keep_long=False, limit=LONG, maxlist=None):
        if isinstance(v, str):
            v = self.s(v)
            if not keep_long and len(v) > limit:
                return v[:limit // 3] + " [...scrubbed %d chars of runtime text]" % (len(v) - limit // 3)
            return v
        if isinstance(v, list):
            return [self.value(x, keep_long, limit, maxlist) for x in v[:maxlist]]
        if isinstance(v, dict):
            return {self.s(k): self.value(x, keep_long, limit, maxlist) for k, x in v.items()}
        return v

    def record(self, rec):
        """A transcript record: message contents and tool results are kept whole."""
        if not isinstance(rec, dict):
            return self.value(rec)
        out = {}
        chat = rec.get("type") in ("user", "assistant", "system")
        for k, v in rec.items():
            whole = chat and k in ("message", "toolUseResult", "content")
            # Prompt snapshots and request shapes are the runtime's own text: keep their shape only.
            # Their lists (prompt sections, tool schemas, request parameters) keep 3 items.
            out[self.s(k)] = self.value(v, keep_long=whole, limit=self.LONG if chat else 60,
                                        maxlist=None if chat else 3)
        return out

    def jsonl(self, src, dst, transcript=True, keep_long=False):
        with open(src) as f, open(dst, "w") as g:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                rec = json.loads(line)
                rec = self.record(rec) if transcript else self.value(rec, keep_long=keep_long)
                g.write(json.dumps(rec, ensure_ascii=False,
                                   separators=(",", ":")) + "\n")


def rewind_point(cfg, session, marker):
    """The uuid of the newest assistant line whose text holds marker: a rewind to it."""
    found = None
    for p in glob.glob(os.path.join(cfg, "projects", "*", session + ".jsonl")):
        with open(p) as f:
            for line in f:
                rec = json.loads(line)
                if rec.get("type") != "assistant":
                    continue
                for b in (rec.get("message") or {}).get("content") or []:
                    if b.get("type") == "text" and marker in b.get("text", ""):
                        found = rec["uuid"]
    if not found:
        raise SystemExit("no assistant line holds %r" % marker)
    return found


class Live:
    """One `claude -p --input-format stream-json --output-format stream-json` process, fed one user
    message at a time; every line it prints is kept (self.lines, with the index of the turn)."""

    def __init__(self, cmd, cwd, env, label):
        import queue
        self.label = label
        self.argv = ["claude"] + cmd[1:]
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.q = queue.Queue()
        self.lines = []
        self.turns = []
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                msg = {"_raw": line}
            self.q.put(msg)
        self.q.put(None)

    def send(self, text):
        self.turns.append({"send": text, "sent_at": len(self.lines)})
        msg = {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}}
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def wait_result(self, timeout=180):
        """Read until a result message (or timeout / end of output); returns it or None."""
        import queue
        t = self.turns[-1]
        while True:
            try:
                msg = self.q.get(timeout=timeout)
            except queue.Empty:
                t["outcome"] = "no result within %ds" % timeout
                return None
            if msg is None:
                t["outcome"] = "output ended"
                return None
            self.lines.append({"turn": len(self.turns) - 1, "msg": msg})
            if msg.get("type") == "result":
                t.update(outcome="result", session_id=msg.get("session_id"), result=msg.get("result"),
                         subtype=msg.get("subtype"), is_error=msg.get("is_error"))
                return msg

    def close(self, timeout=60):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        while True:  # what it printed after the last result
            try:
                msg = self.q.get(timeout=5)
            except Exception:  # queue.Empty
                break
            if msg is None:
                break
            self.lines.append({"turn": len(self.turns) - 1, "after_close": True, "msg": msg})
        return self.proc.returncode


def count_tools_lists(mcplog):
    """How many tools/list answers the MCP shim has relayed so far."""
    n = 0
    if os.path.exists(mcplog):
        with open(mcplog) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:  # a line being written
                    continue
                if rec.get("event") == "rpc" and rec.get("dir") == "out" and "tools" in (rec["msg"].get("result") or {}):
                    n += 1
    return n


def wait_mcp(mcplog, before, want=1, timeout=30):
    """Wait until `want` more MCP servers have answered tools/list (a live process sends its first
    message only then, so the first ToolSearch finds cairn connected)."""
    import time
    end = time.time() + timeout
    while time.time() < end and count_tools_lists(mcplog) < before + want:
        time.sleep(0.2)


def shim_mcp(cfg, proj, mcplog, cairn_bin):
    """Put mcp_shim.py in front of the cairn MCP server that setup registered in .claude.json."""
    p = os.path.join(cfg, ".claude.json")
    with open(p) as f:
        data = json.load(f)
    srv = data["projects"][proj]["mcpServers"]["cairn"]
    srv["command"] = "python3"
    srv["args"] = [os.path.join(HERE, "mcp_shim.py"), "--log", mcplog, "--", cairn_bin] + srv.get("args", ["mcp"])
    with open(p, "w") as f:
        json.dump(data, f, indent=2)


def trace_steps(name, sc, claude, cfg, proj, env, mcplog):
    """The steps of a session scenario; returns (first session, step records, Live processes)."""
    sessions = {}
    out = []
    lives = []

    def base(step, stream):
        cmd = [claude, "-p"]
        if not stream:
            cmd.append(step["prompt"])
        cmd += ["--dangerously-skip-permissions", "--verbose"] if stream else ["--dangerously-skip-permissions"]
        cmd += ["--input-format", "stream-json", "--output-format", "stream-json"] if stream else ["--output-format", "json"]
        if step.get("resume"):
            cmd += ["--resume", sessions[step["resume"]]]
        if step.get("fork"):
            cmd.append("--fork-session")
        return cmd

    def start(step):
        before = count_tools_lists(mcplog)
        lv = Live(base(step, True), proj, env, step.get("name"))
        lives.append(lv)
        wait_mcp(mcplog, before)
        return lv

    def finish(step, lv):
        rc = lv.close()
        sids = [t.get("session_id") for t in lv.turns if t.get("session_id")]
        if step.get("name") and sids:
            sessions[step["name"]] = sids[0]
        out.append({"name": step.get("name"), "argv": lv.argv, "pid": lv.proc.pid, "rc": rc,
                    "stream_log": "stream-%d.jsonl" % lives.index(lv), "turns": lv.turns,
                    "stderr": "".join(lv.stderr)[-2000:]})
        for t in lv.turns:
            print("%s/%s: %r -> %s %r (session %s)" % (name, step.get("name"), t["send"], t.get("outcome"),
                                                        t.get("result"), t.get("session_id")), file=sys.stderr)

    for step in sc["steps"]:
        if "prompt" in step:
            cmd = base(step, False)
            r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=300)
            rec = {"name": step.get("name"), "argv": ["claude"] + cmd[1:], "rc": r.returncode, "stderr": r.stderr[-2000:]}
            try:
                res = json.loads(r.stdout)
                rec.update(session_id=res.get("session_id"), result=res.get("result"))
                if step.get("name"):
                    sessions[step["name"]] = res.get("session_id")
            except ValueError:
                rec["stdout"] = r.stdout[-2000:]
            out.append(rec)
            print("%s/%s: rc=%d %r (session %s)" % (name, step.get("name"), r.returncode, rec.get("result"),
                                                    rec.get("session_id")), file=sys.stderr)
        elif "stream" in step:
            lv = start(step)
            for text in step["stream"]:
                lv.send(text)
                lv.wait_result()
            finish(step, lv)
        else:  # together: side by side, one message to each in turn, then wait for both
            group = [(st, start(st)) for st in step["together"]]
            for i in range(max(len(st["stream"]) for st in step["together"])):
                for st, lv in group:
                    if i < len(st["stream"]):
                        lv.send(st["stream"][i])
                for st, lv in group:
                    if i < len(st["stream"]):
                        lv.wait_result()
            for st, lv in group:
                finish(st, lv)
    first = next((r.get("session_id") or (r.get("turns") or [{}])[0].get("session_id") for r in out), None)
    return first, out, lives


def save_trace(scrub, dst, claude, env, proj, mcplog, lives):
    """VERSION, the MCP shim's log, the stream-json output and the cairn workspace's sessions/."""
    r = subprocess.run([claude, "--version"], env=env, capture_output=True, text=True, timeout=60)
    with open(os.path.join(dst, "VERSION"), "w") as f:
        f.write(r.stdout.split()[0] + "\n" if r.stdout.split() else "unknown\n")
    if os.path.exists(mcplog):
        scrub.jsonl(mcplog, os.path.join(dst, "mcp-log.jsonl"), transcript=False, keep_long=True)
    for i, lv in enumerate(lives):
        with open(os.path.join(dst, "stream-%d.jsonl" % i), "w") as g:
            for line in lv.lines:
                g.write(json.dumps(scrub.value(line, keep_long=True), ensure_ascii=False, separators=(",", ":")) + "\n")
    sdir = os.path.join(proj, "sessions")
    for p in glob.glob(os.path.join(sdir, "**", "*"), recursive=True):
        if not os.path.isfile(p):
            continue
        target = os.path.join(dst, "sessions-after", os.path.relpath(p, sdir))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if p.endswith(".jsonl"):
            scrub.jsonl(p, target, transcript=False, keep_long=True)
        else:
            with open(p, "rb") as f, open(target, "wb") as g:
                g.write(f.read())


def run(name, sc, claude, out, keep, cairn_bin, register=None):
    root = tempfile.mkdtemp(prefix="cc-harness-")
    home = os.path.join(root, "home")
    proj = os.path.join(root, "project")
    cfg = os.path.join(home, ".claude")
    os.makedirs(cfg)
    os.makedirs(proj)
    hooklog = os.path.join(root, "hooks.jsonl")
    hookcmd = "python3 %s %s" % (os.path.join(HERE, "hook_log.py"), hooklog)
    events = HOOK_EVENTS
    if sc.get("trace"):  # every event, with the hook's environment and process chain
        hookcmd = "python3 %s --env %s" % (os.path.join(HERE, "hook_log.py"), hooklog)
        events = HOOK_EVENTS + ["PreToolUse"]
    # No matcher: SessionStart fires for every source (startup, resume, clear, compact, ...).
    settings = {"hooks": {ev: [{"hooks": [{"type": "command", "command": hookcmd}]}] for ev in events}}
    with open(os.path.join(cfg, "settings.json"), "w") as f:
        json.dump(settings, f, indent=2)

    reqlog = os.path.join(root, "requests.jsonl")
    logf = open(reqlog, "a")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), mock_api.make_handler(sc["script"], logf))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]

    env = dict(os.environ)
    env.update({"HOME": home, "CLAUDE_CONFIG_DIR": cfg, "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % port,
                "ANTHROPIC_API_KEY": "test", "IS_SANDBOX": "1", "DISABLE_TELEMETRY": "1",
                "DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
    # 2.1.x offers the task tools (or TodoWrite) to newer models only with this switch;
    # TodoWrite replaces TaskCreate/TaskUpdate/TaskList when the task tools are off.
    env["CLAUDE_CODE_ENABLE_TODO_TOOLS"] = "1"
    if sc.get("todo"):
        env["CLAUDE_CODE_ENABLE_TASKS"] = "false"
    for k in ("CAIRN_WORKSPACE", "CAIRN_SESSION", "CAIRN_USER"):
        env.pop(k, None)
    if sc.get("path_cairn"):
        env["PATH"] = os.path.dirname(os.path.abspath(cairn_bin)) + os.pathsep + env.get("PATH", "")
    mcplog = os.path.join(root, "mcp-log.jsonl")
    if sc.get("cairn"):
        subprocess.run([cairn_bin, "init"], cwd=proj, env=env, check=True, capture_output=True)
        argv = [cairn_bin, "setup", "claude-code", "--scope", "local"]
        if sc.get("plugin"):
            argv = [cairn_bin, "setup", "claude-code", "--plugin", os.path.join(root, "plugin")]
        if register:
            argv += ["--command", register]
        r = subprocess.run(argv, cwd=proj, env=env, capture_output=True, text=True)
        with open(os.path.join(root, "setup.txt"), "w") as f:
            f.write("$ cairn " + " ".join(argv[1:]) + "\n" + r.stdout + r.stderr)
        print(r.stdout, r.stderr, file=sys.stderr)
        if sc.get("trace"):
            shim_mcp(cfg, proj, mcplog, os.path.abspath(cairn_bin))
        plug = ["--plugin-dir", os.path.join(root, "plugin")] if sc.get("plugin") else []
        r = subprocess.run([claude] + plug + ["mcp", "list"], cwd=proj, env=env, capture_output=True, text=True, timeout=120)
        with open(os.path.join(root, "mcp-list.txt"), "w") as f:
            f.write(r.stdout + r.stderr)
        print("claude mcp list:\n" + r.stdout + r.stderr, file=sys.stderr)

    session = None
    transcript_out = []
    lives = []
    if sc.get("trace"):
        session, transcript_out, lives = trace_steps(name, sc, claude, cfg, proj, env, mcplog)
    for step in sc["steps"] if not sc.get("trace") else []:
        cmd = [claude, "-p", step["prompt"], "--dangerously-skip-permissions", "--output-format", "json"]
        if step.get("resume"):
            cmd += ["--resume", session]
        if step.get("rewind_to"):
            cmd += ["--resume-session-at", rewind_point(cfg, session, step["rewind_to"])]
        if sc.get("plugin"):
            cmd += ["--plugin-dir", os.path.join(root, "plugin")]
        r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=300)
        transcript_out.append({"argv": ["claude"] + cmd[1:], "rc": r.returncode, "stderr": r.stderr[-2000:]})
        try:
            res = json.loads(r.stdout)
            session = session or res.get("session_id")
            transcript_out[-1]["result"] = res.get("result")
        except ValueError:
            transcript_out[-1]["stdout"] = r.stdout[-2000:]
        print("%s: %s rc=%d result=%r" % (name, step["prompt"], r.returncode, transcript_out[-1].get("result")),
              file=sys.stderr)
    srv.shutdown()
    logf.close()

    scrub = Scrubber(root, home, proj, (register or cairn_bin) if sc.get("cairn") else None, claude)
    dst = os.path.join(out, name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for p in glob.glob(os.path.join(cfg, "projects", "*", "**", "*.jsonl"), recursive=True):
        rel = os.path.relpath(p, os.path.join(cfg, "projects"))
        rel = scrub.s(rel)
        target = os.path.join(dst, "projects", rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        scrub.jsonl(p, target)
    for p in glob.glob(os.path.join(cfg, "projects", "*", "**", "*.meta.json"), recursive=True):
        rel = scrub.s(os.path.relpath(p, os.path.join(cfg, "projects")))
        target = os.path.join(dst, "projects", rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(p) as f:
            data = scrub.value(json.load(f))
        with open(target, "w") as f:
            json.dump(data, f, indent=2)
    for p in glob.glob(os.path.join(cfg, "tasks", "*", "*.json")) + glob.glob(os.path.join(cfg, "todos", "*.json")):
        rel = os.path.relpath(p, cfg)
        target = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(p) as f:
            data = scrub.value(json.load(f), keep_long=True)
        with open(target, "w") as f:
            json.dump(data, f, indent=2)
    if os.path.exists(hooklog):
        scrub.jsonl(hooklog, os.path.join(dst, "hooks.jsonl"), transcript=False, keep_long=bool(sc.get("trace")))
    scrub.jsonl(reqlog, os.path.join(dst, "requests.jsonl"), transcript=False)
    if sc.get("cairn") and not sc.get("trace"):  # trace scenarios keep sessions-after/ instead
        for p in glob.glob(os.path.join(proj, "sessions", "*")) + glob.glob(os.path.join(proj, "*.jsonl")):
            if p.endswith(".jsonl"):
                scrub.jsonl(p, os.path.join(dst, "cairn-" + os.path.basename(p)), transcript=False)
    if sc.get("plugin"):
        pdir = os.path.join(root, "plugin")
        for p in glob.glob(os.path.join(pdir, "**", "*"), recursive=True) + glob.glob(os.path.join(pdir, ".*", "*")) + \
                glob.glob(os.path.join(pdir, ".mcp.json")):
            if os.path.isfile(p):
                target = os.path.join(dst, "plugin-folder", os.path.relpath(p, pdir))
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(p) as f, open(target, "w") as g:
                    g.write(scrub.s(f.read()))
    for extra in ("mcp-list.txt", "setup.txt"):
        if os.path.exists(os.path.join(root, extra)):
            with open(os.path.join(root, extra)) as f, open(os.path.join(dst, extra), "w") as g:
                g.write(scrub.s(f.read()))
    if sc.get("cairn"):
        for p in (os.path.join(proj, ".claude", "settings.local.json"), os.path.join(home, ".claude.json"),
                  os.path.join(cfg, ".claude.json")):
            if os.path.exists(p):
                with open(p) as f:
                    data = json.load(f)
                if os.path.basename(p) == ".claude.json":  # keep the registration, not the account state
                    data = {k: v for k, v in data.items() if k in ("projects", "mcpServers")}
                with open(os.path.join(dst, "after-run-" + os.path.basename(p)), "w") as g:
                    json.dump(scrub.value(data, keep_long=True), g, indent=2)
    if sc.get("trace"):
        save_trace(scrub, dst, claude, env, proj, mcplog, lives)
    with open(os.path.join(dst, "steps.json"), "w") as f:
        json.dump(scrub.value({"about": sc["about"], "session": session, "steps": transcript_out}), f, indent=2)
    if keep:
        print("kept %s" % root, file=sys.stderr)
    else:
        shutil.rmtree(root, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--claude", default=os.environ.get("CLAUDE_BIN", DEFAULT_CLAUDE))
    ap.add_argument("--cairn", default=os.environ.get("CAIRN_BIN", "cairn"))
    ap.add_argument("--register", help="the cairn binary setup registers (--command); default: --cairn")
    ap.add_argument("--out", default="/work/claude-fixtures")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    names = a.scenarios or [n for n in SCENARIOS if n != "mcp" and n not in TRACE]
    os.makedirs(a.out, exist_ok=True)
    for n in names:
        run(n, SCENARIOS[n], a.claude, a.out, a.keep, a.cairn, a.register)


if __name__ == "__main__":
    main()
