// A client of hands serve --tool-search written with the official
// TypeScript SDK, run by TestServeToolSearchTypeScript. It connects over
// stdio (starting the command in $HANDS_SERVE_COMMAND, a JSON array) or
// streamable HTTP (to the URL in $HANDS_SERVE_URL), lists the tools,
// searches with search_tools for $HANDS_QUERY, waits for list_changed
// (over stdio and stateful HTTP), lists again, calls the first tool found
// with $HANDS_CALL_ARGS, and prints what it saw as one JSON object.
import path from "node:path";

const sdk = process.env.HANDS_MCP_SDK;
const load = (p) => import(path.join(sdk, "dist", "esm", p));
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { ToolListChangedNotificationSchema } = await load("types.js");

const client = new Client({ name: "toolsearch-client", version: "1" });
let changed = 0;
let onChange = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changed++;
  onChange();
});

let transport;
if (process.env.HANDS_SERVE_URL) {
  transport = new StreamableHTTPClientTransport(new URL(process.env.HANDS_SERVE_URL));
} else {
  const [command, ...args] = JSON.parse(process.env.HANDS_SERVE_COMMAND);
  transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
}
await client.connect(transport);

const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
const t0 = Date.now();
const log = (m) => process.stderr.write(`[${Date.now() - t0}ms] ${m}\n`);
const out = { before: await names() };
const waitChange = new Promise((resolve) => {
  onChange = resolve;
  if (changed > 0) resolve();
});
const res = await client.callTool({ name: "search_tools", arguments: { query: process.env.HANDS_QUERY } });
out.searchIsError = !!res.isError;
out.found = (res.structuredContent?.tools ?? []).map((t) => t.name);
out.foundHaveSchemas = (res.structuredContent?.tools ?? []).every((t) => t.inputSchema?.type === "object" && t.description);
if (process.env.HANDS_EXPECT_CHANGE === "1") {
  await Promise.race([waitChange, new Promise((_, reject) => setTimeout(() => reject(new Error("no list_changed within 30s")), 30000))]);
}
log("changed " + changed);
out.changed = changed;
out.after = await names();
if (out.found.length > 0) {
  const call = await client.callTool({ name: out.found[0], arguments: JSON.parse(process.env.HANDS_CALL_ARGS) });
  out.call = { isError: !!call.isError, text: call.content.map((c) => c.text ?? "").join("") };
}
log("called");
console.log(JSON.stringify(out));
await client.close();
log("closed");
process.exit(0); // the timer of the wait for list_changed would hold the process
