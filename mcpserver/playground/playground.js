// The playground page: the tools of the server, a form per tool, calls
// through the MCP endpoint with live progress, and the schema in each
// dialect.

import { AuthError, Client, ForbiddenError, RPCError } from "./mcp.js";
import { buildForm, FieldError, showIssues } from "./form.js";

// The _meta key of the issues of invalid arguments (mcpserver.IssuesMeta).
const issuesKey = "com.github.hands-go/issues";

const $ = id => document.getElementById(id);
const endpoint = new URL(document.querySelector('meta[name="mcp-endpoint"]').content, location.href).href;
const client = new Client(endpoint);

let list = null;          // tools.json
let enabled = new Set();  // the tools listed for this session
let current = null;       // { tool, form }
let dialect = "mcp";
let progressToken = 0;

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const setStatus = text => { $("status").textContent = text; };

async function fetchTools() {
  const headers = client.token ? { Authorization: "Bearer " + client.token } : {};
  const res = await fetch("tools.json", { headers });
  if (res.status === 401) throw new AuthError("the server requires a valid bearer token");
  if (res.status === 403) throw new ForbiddenError(res.statusText);
  if (!res.ok) throw new Error(`tools.json: ${res.status} ${res.statusText}`);
  return res.json();
}

async function refreshEnabled() {
  const names = new Set();
  let cursor;
  do {
    const page = await client.request("tools/list", cursor ? { cursor } : {});
    for (const t of page.tools) names.add(t.name);
    cursor = page.nextCursor;
  } while (cursor);
  enabled = names;
}

async function start() {
  try {
    setStatus("Connecting…");
    list = await fetchTools();
    await client.connect();
    await refreshEnabled();
  } catch (e) {
    if (e instanceof AuthError) {
      $("token-form").hidden = false;
      setStatus(client.token ? "The token was refused; enter another." : "This server requires a bearer token.");
      $("token").focus();
      return;
    }
    let hint = "";
    if (e instanceof ForbiddenError && !/^(localhost|127\.[0-9.]+|\[::1\])$/.test(location.hostname)) {
      hint = `. Pages from ${location.origin} may be refused: open the page at localhost, or allow the origin (hands serve --allow-origin ${location.origin}, or HTTPOptions.AllowedOrigins).`;
    }
    setStatus("Could not connect to " + endpoint + ": " + e.message + hint);
    return;
  }
  $("token-form").hidden = true;
  const server = client.server ? `${client.server.name} ${client.server.version}` : "the server";
  setStatus(`Connected to ${server} at ${endpoint}` + (client.session ? "" : " (stateless)") + `: ${enabled.size} of ${list.tools.length} tools enabled.`);
  $("dialect").replaceChildren(...list.dialects.map(d => el("option", { value: d.name, text: `${d.provider} (${d.name})` })));
  $("dialect").value = dialect;
  renderTools();
  const wanted = decodeURIComponent(location.hash.slice(1));
  const first = list.tools.find(t => t.name === wanted) || list.tools[0];
  if (first) selectTool(first.name);
}

function badges(t) {
  const out = [];
  const a = t.annotations;
  if (a?.readOnly) out.push(["read-only", "ro"]);
  if (a && !a.readOnly && a.destructive) out.push(["destructive", "destructive"]);
  if (a?.idempotent) out.push(["idempotent", "idem"]);
  if (a?.openWorld) out.push(["open world", "open"]);
  if (t.version) out.push(["version " + t.version, "version"]);
  const d = t.deprecation;
  if (d) out.push([d.sunset ? "deprecated until " + d.sunset.slice(0, 10) : "deprecated", "deprecated"]);
  out.push(enabled.has(t.name) ? ["enabled", "enabled"] : ["disabled", "disabled"]);
  return out;
}

function renderTools() {
  $("tools").replaceChildren(...list.tools.map(t => {
    const b = el("button", { type: "button", "data-tool": t.name, "aria-current": current?.tool.name === t.name ? "true" : null },
      el("span", { class: "name", text: t.name }),
      t.title ? el("span", { class: "title", text: t.title }) : null,
      el("span", { class: "badges" }, ...badges(t).map(([text, cls]) => el("span", { class: "badge " + cls, text }))));
    b.addEventListener("click", () => selectTool(t.name));
    return el("li", {}, b);
  }));
}

function selectTool(name) {
  const t = list.tools.find(x => x.name === name);
  if (!t) return;
  const form = buildForm(t.inputSchema);
  current = { tool: t, form };
  history.replaceState(null, "", "#" + encodeURIComponent(name));
  for (const b of document.querySelectorAll("#tools button")) {
    if (b.dataset.tool === name) b.setAttribute("aria-current", "true");
    else b.removeAttribute("aria-current");
  }
  $("tool").hidden = false;
  $("tool-name").textContent = t.title ? `${t.title} (${t.name})` : t.name;
  $("tool-description").textContent = t.description;
  renderExamples(t);
  renderBadges();
  $("fields").replaceChildren(form.el);
  $("raw-json").value = JSON.stringify(form.value() ?? {}, null, 2);
  $("root-issues").replaceChildren();
  $("progress-log").replaceChildren();
  $("progress-bar").hidden = true;
  $("result").replaceChildren();
  setMode(document.querySelector('input[name="mode"]:checked').value);
  renderSchema();
}

// renderExamples lists the tool's examples, each with a button that fills
// the form (and the JSON) from it.
function renderExamples(t) {
  const examples = t.examples || [];
  $("examples").hidden = examples.length === 0;
  $("example-list").replaceChildren(...examples.map((ex, i) => {
    const use = el("button", { type: "button", class: "use-example", "data-example": String(i), text: `Use example ${i + 1}` });
    use.addEventListener("click", () => useExample(ex));
    return el("li", {}, el("pre", { class: "example", tabindex: "0", text: JSON.stringify(ex, null, 2) }), use);
  }));
}

// useExample puts an example's arguments in the form and in the JSON view,
// clearing the issues of an earlier call.
function useExample(ex) {
  if (!current) return;
  clearIssues();
  current.form.set(ex);
  $("raw-json").value = JSON.stringify(ex, null, 2);
}

function renderSchema() {
  if (!current) return;
  const s = current.tool.schemas[dialect];
  const folded = s.description !== current.tool.description;
  $("sent-description").hidden = !folded;
  $("sent-description-text").textContent = folded ? s.description : "";
  $("schema").textContent = s.schema === null ? "(no schema: the provider takes no parameters for this tool)" : JSON.stringify(s.schema, null, 2);
  const problems = [...s.problems, ...(list.problems[dialect] || [])];
  const box = $("problems");
  if (!problems.length) {
    box.replaceChildren(el("p", { class: "ok", text: `No problems in ${dialect}.` }));
    return;
  }
  box.replaceChildren(el("ul", { class: "problems" }, ...problems.map(p => el("li", { class: p.severity },
    el("span", { class: "severity", text: p.severity }), " ",
    el("code", { text: p.path || (p.keyword === "name" ? "name" : p.keyword === "tools" ? "request" : "(root)") }), ": ",
    p.message, p.fix ? el("span", { class: "fix", text: " Fix: " + p.fix }) : null))));
}

function setMode(mode) {
  if (!current) return;
  const raw = mode === "json";
  if (raw && $("raw").hidden) {
    try {
      $("raw-json").value = JSON.stringify(current.form.value() ?? {}, null, 2);
    } catch { /* keep the text */ }
  } else if (!raw && $("fields").hidden) {
    try {
      const sent = JSON.parse($("raw-json").value);
      current.form.set(sent);
      // The issues of a call sent as JSON are shown at the fields now that
      // the form holds what was sent.
      if (current.jsonIssues) showIssues(current.form, current.jsonIssues, sent);
    } catch { /* the form keeps its values */ }
    current.jsonIssues = null;
  }
  $("raw").hidden = !raw;
  $("fields").hidden = raw;
}

function clearIssues() {
  $("root-issues").replaceChildren();
  current.form.clearIssues();
  current.jsonIssues = null;
}

function showProgress(p) {
  const bar = $("progress-bar");
  bar.hidden = false;
  if (p.total) {
    bar.max = p.total;
    bar.value = p.progress;
  } else {
    bar.removeAttribute("value");
  }
  const amount = p.total ? `${p.progress} of ${p.total}` : `${p.progress}`;
  $("progress-log").append(el("li", { text: p.message ? `${amount}: ${p.message}` : amount }));
}

// The image types the page shows as pictures: raster formats, never SVG,
// whose markup is a document of its own.
const pictureTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

// renderContent returns the element that shows one content block of a
// result: text as text, an image as a picture (a data: URL, which the
// page's policy allows for images alone), audio with controls, a link to
// an http(s) resource as a link that opens apart, and anything else as its
// JSON.
function renderContent(c) {
  if (c.type === "text") return el("pre", { class: "text", tabindex: "0", text: c.text });
  const base64 = /^[A-Za-z0-9+/]*={0,2}$/;
  const data = c.type === "image" ? c.data : c.type === "resource" ? c.resource?.blob : undefined;
  const mime = String((c.type === "resource" ? c.resource?.mimeType : c.mimeType) || "").toLowerCase();
  if (typeof data === "string" && pictureTypes.has(mime) && base64.test(data)) {
    return el("figure", { class: "picture" },
      el("img", { src: `data:${mime};base64,${data}`, alt: `${c.type === "image" ? "an image" : c.resource.uri} the tool returned` }),
      el("figcaption", { text: `${mime}, ${Math.floor(data.length * 3 / 4)} bytes` }));
  }
  if (c.type === "audio" && /^audio\/[a-z0-9.+-]+$/.test(mime) && typeof c.data === "string" && base64.test(c.data)) {
    return el("audio", { controls: true, src: `data:${mime};base64,${c.data}` });
  }
  if (c.type === "resource_link") {
    let url = null;
    try { url = new URL(c.uri); } catch { /* not a URL */ }
    if (url && (url.protocol === "https:" || url.protocol === "http:")) {
      return el("p", { class: "link" }, el("a", { href: url.href, target: "_blank", rel: "noopener noreferrer", text: c.name || c.uri }),
        document.createTextNode(c.mimeType ? ` (${c.mimeType})` : ""));
    }
  }
  return el("pre", { class: "other", tabindex: "0", text: JSON.stringify(c, null, 2) });
}

function renderResult(res) {
  const box = el("div", { class: res.isError ? "result error" : "result ok" });
  box.append(el("p", { class: "verdict", text: res.isError ? "The tool returned an error result. A model reads:" : "The tool returned:" }));
  for (const c of res.content || []) box.append(renderContent(c));
  if (res.structuredContent !== undefined) {
    box.append(el("p", { class: "label", text: "Structured output:" }), el("pre", { class: "structured", tabindex: "0", text: JSON.stringify(res.structuredContent, null, 2) }));
  }
  const issues = res._meta?.[issuesKey];
  if (Array.isArray(issues)) {
    const raw = !$("raw").hidden;
    if (raw) {
      current.jsonIssues = issues; // shown at their fields on switching to the form
      box.append(el("p", { class: "label", text: `${plural(issues.length, "issue")}; switch to the form to see them at their fields.` }));
    } else {
      const n = showIssues(current.form, issues);
      box.append(el("p", { class: "label", text: `${plural(issues.length, "issue")}, ${n} shown at ${n === 1 ? "its field" : "their fields"}.` }));
    }
  }
  $("result").replaceChildren(box);
}

async function callTool(ev) {
  ev.preventDefault();
  if (!current) return;
  clearIssues();
  let args;
  if (!$("raw").hidden) {
    try {
      args = JSON.parse($("raw-json").value);
    } catch (e) {
      $("root-issues").replaceChildren(el("p", { text: "The JSON does not parse: " + e.message }));
      return;
    }
  } else {
    try {
      args = current.form.value() ?? {};
    } catch (e) {
      if (e instanceof FieldError) {
        e.widget.showIssue(e.message);
        return;
      }
      throw e;
    }
  }
  const button = $("call");
  button.disabled = true;
  $("result").setAttribute("aria-busy", "true");
  $("result").replaceChildren(el("p", { text: `Calling ${current.tool.name}…` }));
  $("progress-log").replaceChildren();
  $("progress-bar").hidden = true;
  const token = "playground-" + (++progressToken);
  try {
    const res = await client.request("tools/call", { name: current.tool.name, arguments: args, _meta: { progressToken: token } }, msg => {
      if (msg.method === "notifications/progress" && msg.params?.progressToken === token) showProgress(msg.params);
    });
    renderResult(res);
  } catch (e) {
    if (e instanceof AuthError) {
      $("result").replaceChildren(el("p", { class: "error", text: "The server requires a valid bearer token." }));
      $("token-form").hidden = false;
    } else if (e instanceof RPCError) {
      $("result").replaceChildren(el("div", { class: "result error" }, el("p", { class: "verdict", text: `JSON-RPC error ${e.code}:` }), el("pre", { text: e.message })));
    } else {
      $("result").replaceChildren(el("p", { class: "error", text: "The call failed: " + e.message }));
    }
  } finally {
    button.disabled = false;
    $("result").removeAttribute("aria-busy");
  }
  try {
    await refreshEnabled();
    renderTools();
    renderBadges();
  } catch { /* the list stays as it was */ }
}

function renderBadges() {
  const t = current.tool;
  $("tool-note").hidden = enabled.has(t.name);
  $("tool-badges").replaceChildren(...badges(t).map(([text, cls]) => el("li", { class: "badge " + cls, text })),
    el("li", { class: "badge scope", text: "scope " + t.scope }));
}

$("call-form").addEventListener("submit", callTool);
for (const r of document.querySelectorAll('input[name="mode"]')) r.addEventListener("change", () => setMode(r.value));
$("dialect").addEventListener("change", () => { dialect = $("dialect").value; renderSchema(); });
$("token-form").addEventListener("submit", ev => {
  ev.preventDefault();
  client.token = $("token").value.trim();
  start();
});
addEventListener("pagehide", () => client.close());
start();
