// cairn's OpenCode plugin, written by `cairn setup opencode` (a second run rewrites it; edit
// nothing here). It keeps cairn's task lists right for each OpenCode session:
//   - tool.execute.before: every cairn_* tool call carries the session it comes from
//     (cairn_session), because OpenCode names no session to an MCP server;
//   - experimental.session.compacting: the session's task lists go into the compaction prompt;
//   - experimental.chat.system.transform: after a compaction, and on the first request of each
//     session in this process (a resume or a fork; a new session has no list and costs one quick
//     call), the lists go into the system prompt until the model uses a task tool again.
// Both ask `cairn hook opencode` (JSON on stdin, the text on stdout); any failure adds nothing.
import { spawn } from "node:child_process"

const CAIRN = __CAIRN_COMMAND__
const TIMEOUT_MS = 5000

function hook(event) {
  return new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = (text) => { if (!done) { done = true; resolve(text.trim()) } }
    let child
    try {
      child = spawn(CAIRN[0], [...CAIRN.slice(1), "hook", "opencode"], { stdio: ["pipe", "pipe", "ignore"], cwd: event.directory || undefined })
    } catch (e) {
      return finish("")
    }
    const timer = setTimeout(() => { try { child.kill() } catch (e) {} finish("") }, TIMEOUT_MS)
    child.on("error", () => { clearTimeout(timer); finish("") })
    child.stdout.on("data", (d) => { out += d })
    child.on("close", () => { clearTimeout(timer); finish(out) })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(event))
  })
}

const TASK_TOOLS = /^(todowrite|.*_Task(Create|Update|List|Get))$/

export const CairnTasks = async ({ directory }) => {
  const seen = new Set()      // sessions this process has asked about
  const pending = new Map()   // session -> {compacted}: the lists go into the system prompt
  return {
    "tool.execute.before": async (input, output) => {
      if (input.tool.startsWith("cairn_") && output.args && typeof output.args === "object")
        output.args.cairn_session = input.sessionID
    },
    "tool.execute.after": async (input) => {
      if (TASK_TOOLS.test(input.tool)) pending.delete(input.sessionID) // the list is in the conversation again
    },
    event: async ({ event }) => {
      if (event.type === "session.compacted" && event.properties?.sessionID)
        pending.set(event.properties.sessionID, { compacted: true })
    },
    "experimental.session.compacting": async (input, output) => {
      const text = await hook({ event: "experimental.session.compacting", session_id: input.sessionID, directory })
      if (text) output.context.push(text)
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = input.sessionID
      if (!id) return
      const first = String(output.system?.[0] ?? "")
      if (first.startsWith("You are a title generator") || first.startsWith("You are a context summarization agent")) return
      if (!seen.has(id)) {
        seen.add(id)
        if (!pending.has(id)) pending.set(id, { compacted: false })
      }
      const p = pending.get(id)
      if (!p) return
      const text = await hook({ event: "experimental.chat.system.transform", session_id: id, directory, compacted: p.compacted })
      if (text) output.system.push(text)
      else pending.delete(id) // nothing to restore
    },
  }
}
