// A client of MCP's streamable HTTP transport for the playground: JSON-RPC
// over fetch, answered with JSON or with a stream of server-sent events,
// the initialize handshake and the Mcp-Session-Id header.

const protocolVersion = "2025-11-25";

// An AuthError is a request the server refused for want of a valid token.
export class AuthError extends Error {}

// A ForbiddenError is a request the server refused with 403 Forbidden:
// for a page, usually because its origin is not allowed.
export class ForbiddenError extends Error {}

// An RPCError is a JSON-RPC error response.
export class RPCError extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

export class Client {
  constructor(endpoint) {
    this.endpoint = endpoint;
    this.token = "";
    this.session = "";
    this.version = "";
    this.server = null;
    this.nextID = 1;
  }

  headers() {
    const h = {
      "Content-Type": "application/json",
      "Accept": "application/json, text/event-stream",
    };
    if (this.session) h["Mcp-Session-Id"] = this.session;
    if (this.version) h["MCP-Protocol-Version"] = this.version;
    if (this.token) h["Authorization"] = "Bearer " + this.token;
    return h;
  }

  async post(message) {
    const res = await fetch(this.endpoint, { method: "POST", headers: this.headers(), body: JSON.stringify(message) });
    const session = res.headers.get("Mcp-Session-Id");
    if (session) this.session = session;
    if (res.status === 401) throw new AuthError("the server requires a valid bearer token");
    if (res.status === 403) {
      let msg = res.statusText;
      try { msg = (await res.json()).error?.message || msg; } catch { /* not JSON */ }
      throw new ForbiddenError(msg);
    }
    return res;
  }

  // connect runs the initialize handshake, in a new session.
  async connect() {
    this.session = "";
    this.version = "";
    const result = await this.call("initialize", {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "hands-playground", version: "1" },
    }, null, false);
    this.version = result.protocolVersion;
    this.server = result.serverInfo;
    const res = await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    await res.body?.cancel();
    return result;
  }

  // close ends the session, if there is one, without waiting for the
  // answer: the page calls it when it goes away.
  close() {
    if (!this.session) return;
    fetch(this.endpoint, { method: "DELETE", headers: this.headers(), keepalive: true }).catch(() => {});
    this.session = "";
  }

  // request sends a request and returns its result. onNotification receives
  // the notifications the server sends on the request's stream, such as
  // progress, as they arrive. A session the server no longer knows is
  // opened again, once.
  async request(method, params, onNotification) {
    return this.call(method, params, onNotification, true);
  }

  async call(method, params, onNotification, retry) {
    const id = this.nextID++;
    const res = await this.post({ jsonrpc: "2.0", id, method, params });
    if (res.status === 404 && retry && this.session) {
      await res.body?.cancel();
      await this.connect();
      return this.call(method, params, onNotification, false);
    }
    const type = res.headers.get("Content-Type") || "";
    let response = null;
    if (type.startsWith("text/event-stream")) {
      for await (const msg of events(res)) {
        if (msg.id === id && (msg.result !== undefined || msg.error !== undefined)) {
          response = msg;
          break;
        }
        if (msg.method && onNotification) onNotification(msg);
      }
    } else {
      const text = await res.text();
      let body = null;
      try { body = JSON.parse(text); } catch { /* not JSON */ }
      if (Array.isArray(body)) body = body.find(m => m.id === id) || null;
      if (body && (body.result !== undefined || body.error !== undefined)) response = body;
      else if (!res.ok) throw new Error(`${res.status} ${res.statusText}: ${text.trim()}`);
    }
    if (!response) throw new Error(`no response to ${method}`);
    if (response.error) throw new RPCError(response.error);
    return response.result;
  }
}

// events yields the JSON-RPC messages of a response's event stream.
async function* events(res) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").filter(l => l.startsWith("data:")).map(l => l.slice(5).replace(/^ /, "")).join("\n");
        if (!data) continue;
        let msg;
        try { msg = JSON.parse(data); } catch { continue; }
        yield msg;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
