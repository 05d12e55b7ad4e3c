// mcpbench-ts measures the per-call latency of one tool of `cairn mcp` through the official
// TypeScript MCP client, the SDK Node agent runtimes (Claude Code among them) are built on: it
// spawns `cairn [ARGS...] mcp` over stdio, calls the tool WARMUP times, then N times one after
// the other, and prints p50, p99 and max in the line format of scripts/mcpbench.
//
//   node bench.mjs LABEL N WARMUP CAIRN TOOL INPUT_JSON [CAIRN_ARGS...]
//
// A call that answers with a tool error stops the run: a fast error is no measurement.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [, , label, n, warmup, bin, tool, input, ...args] = process.argv;
const transport = new StdioClientTransport({ command: bin, args: [...args, "mcp"], stderr: "inherit" });
const client = new Client({ name: "mcpbench-ts", version: "1" });
await client.connect(transport);
const params = { name: tool, arguments: JSON.parse(input) };
let answer = 0;
const call = async () => {
  const start = process.hrtime.bigint();
  const res = await client.callTool(params);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (res.isError) {
    console.error(`${tool} answered an error: ${res.content?.[0]?.text}`);
    process.exit(1);
  }
  answer = Buffer.byteLength(res.content?.[0]?.text ?? "");
  return ms;
};
for (let i = 0; i < Number(warmup); i++) await call();
const times = [];
for (let i = 0; i < Number(n); i++) times.push(await call());
times.sort((a, b) => a - b);
const pct = (p) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)];
const f = (x) => x.toFixed(3).padStart(7);
const size = answer >= 1e6 ? `${(answer / 1e6).toFixed(2)} MB` : `${(answer / 1e3).toFixed(1)} kB`;
console.log(`  ${label.padEnd(44)} p50 ${f(pct(50))} ms  p99 ${f(pct(99))} ms  max ${f(times[times.length - 1])} ms  (${times.length} calls)  answer ${size}`);
await client.close();
