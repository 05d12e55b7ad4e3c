// A harness plugin for OpenCode: logs what each hook receives to $OC_HARNESS_PLUGIN_LOG (one JSON
// line per call: {time, hook, input, output}) and plants markers where a hook may add text:
//   experimental.session.compacting -> output.context.push("PLUGIN-COMPACTING-CONTEXT ...")
//   experimental.chat.system.transform -> output.system.push("PLUGIN-SYSTEM-TRANSFORM ...")
// so the mock's request log shows where that text reaches the model. With
// OC_HARNESS_PLUGIN_TAG_MCP=1, tool.execute.before adds {cairn_session: sessionID} to the
// arguments of every cairn_* (MCP) tool call.
import { appendFileSync } from "fs"

const LOG = process.env.OC_HARNESS_PLUGIN_LOG
const MARKS = process.env.OC_HARNESS_PLUGIN_MARKS === "1"

function safe(v) {
  const seen = new WeakSet()
  return JSON.parse(JSON.stringify(v, (k, x) => {
    if (typeof x === "bigint") return String(x)
    if (typeof x === "function") return "[function]"
    if (x && typeof x === "object") {
      if (seen.has(x)) return "[circular]"
      seen.add(x)
    }
    return x
  }) ?? "null")
}

function log(hook, input, output) {
  if (!LOG) return
  let rec
  try {
    rec = { time: Date.now(), hook, input: safe(input), output: safe(output) }
  } catch (e) {
    rec = { time: Date.now(), hook, error: String(e) }
  }
  appendFileSync(LOG, JSON.stringify(rec) + "\n")
}

export const HarnessLog = async (ctx) => {
  log("init", {
    keys: Object.keys(ctx).sort(),
    directory: ctx.directory,
    worktree: ctx.worktree,
    project: ctx.project,
    serverUrl: ctx.serverUrl ? String(ctx.serverUrl) : undefined,
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("OPENCODE"))),
  })
  return {
    event: async ({ event }) => {
      // streaming deltas are many and say nothing new: the type alone
      if (event.type === "message.part.delta") return log("event", { type: event.type })
      if (event.type === "plugin.added" || event.type === "catalog.updated" || event.type === "reference.updated" ||
        event.type === "integration.updated") return log("event", { type: event.type })
      log("event", event)
    },
    "chat.message": async (input, output) => log("chat.message", input, output),
    "chat.params": async (input, output) => log("chat.params", { sessionID: input.sessionID, agent: input.agent }, output),
    "tool.execute.before": async (input, output) => {
      log("tool.execute.before", input, output)
      if (process.env.OC_HARNESS_PLUGIN_TAG_MCP === "1" && input.tool.startsWith("cairn_") && output.args)
        output.args.cairn_session = input.sessionID
    },
    "tool.execute.after": async (input, output) => log("tool.execute.after", input, output),
    "experimental.chat.system.transform": async (input, output) => {
      log("experimental.chat.system.transform", input, { system: output.system })
      if (MARKS) output.system.push("PLUGIN-SYSTEM-TRANSFORM: a plugin's system text (session " + input.sessionID + ")")
    },
    "experimental.chat.messages.transform": async (input, output) =>
      log("experimental.chat.messages.transform", input, { count: output.messages.length,
        roles: output.messages.map((m) => m.info.role + ":" + m.parts.map((p) => p.type).join("+")) }),
    "experimental.session.compacting": async (input, output) => {
      log("experimental.session.compacting", input, output)
      if (MARKS) output.context.push("PLUGIN-COMPACTING-CONTEXT: the task list a plugin adds to the compaction prompt")
    },
    "experimental.compaction.autocontinue": async (input, output) =>
      log("experimental.compaction.autocontinue", { sessionID: input.sessionID, agent: input.agent, overflow: input.overflow }, output),
  }
}
