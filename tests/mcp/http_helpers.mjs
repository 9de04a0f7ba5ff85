// Helpers for the tests of `bsh mcp --listen`: a server on a free port,
// the official SDK client over Streamable HTTP, and raw HTTP requests.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BSH } from './helpers.mjs';

export const MODERN = '2026-07-28';
export const META = { 'io.modelcontextprotocol/protocolVersion': MODERN };

// Starts `bsh mcp --listen ADDR ...args` and waits for the line that says
// where it serves. `url` is the /mcp endpoint (or null for unix:).
export async function startServer(args = [], { listen = '127.0.0.1:0' } = {}) {
  const child = spawn(BSH, ['mcp', '--listen', listen, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((r) => child.on('exit', (code, signal) => r(code ?? signal)));
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 5000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving bash_run over HTTP on (\S+)\/mcp/.exec(stderr);
      if (m) { clearTimeout(t); resolve(m[1].startsWith('http') ? `${m[1]}/mcp` : null); }
    });
    child.on('exit', () => { clearTimeout(t); reject(new Error(`server exited: ${stderr}`)); });
  });
  return {
    child, exited, url,
    base: url ? url.replace(/\/mcp$/, '') : null,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

// The SDK's client connected over Streamable HTTP.
export async function sdkClient(url, headers = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  transport.onerror = () => {};
  const client = new Client({ name: 'bsh-http-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const JSON_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};

// A POST of `body` (an object, or text as is) with the usual headers.
export function post(url, body, headers = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

// The headers of a modern request for `body`: version, method, name.
export function modernHeaders(body, extra = {}) {
  const h = { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': body.method, ...extra };
  const name = body.params?.name;
  if (body.method === 'tools/call') h['Mcp-Name'] = name;
  const runId = body.params?.arguments?.run_id;
  if (runId !== undefined) h['Mcp-Param-Run-Id'] = runId;
  return h;
}

export function modernCall(id, name, args) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: META } };
}

// Posts a modern request with its headers and returns [status, message].
export async function modern(url, body, headers = {}) {
  const r = await post(url, body, { ...modernHeaders(body), ...headers });
  return [r.status, await answerOf(r)];
}

// The JSON-RPC message of a response: its JSON body, or the last data
// event of its event stream.
export async function answerOf(r) {
  const text = await r.text();
  if (!(r.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return text ? JSON.parse(text) : null;
  const events = parseEvents(text);
  return events.length ? JSON.parse(events.at(-1).data) : null;
}

// The events of a text/event-stream body: [{id, data}].
export function parseEvents(text) {
  return text.split('\n\n').filter((b) => b.trim()).map((block) => {
    const e = {};
    for (const line of block.split('\n')) {
      const m = /^(\w+): ?(.*)$/.exec(line);
      if (m) e[m[1]] = m[2];
    }
    return e;
  });
}

// A legacy MCP session opened by hand: its id.
export async function openSession(url, headers = {}) {
  const r = await post(url, {
    jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  }, headers);
  await r.text();
  const id = r.headers.get('mcp-session-id');
  if (!id) throw new Error(`no session id (${r.status})`);
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'Mcp-Session-Id': id, ...headers }).then((x) => x.text());
  return id;
}

// A session's GET stream on a raw socket: `seen()` is every byte so far,
// `until(text, ms)` waits (at most `ms`) for `text` to have come.
export function rawStream(base, sessionId) {
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
  let seen = '';
  socket.on('data', (d) => { seen += d; });
  socket.on('error', () => {});
  socket.write(`GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n`
    + `Mcp-Session-Id: ${sessionId}\r\n\r\n`);
  return {
    socket,
    seen: () => seen,
    async until(text, ms) {
      const end = Date.now() + ms;
      while (!seen.includes(text) && Date.now() < end)
        await new Promise((r) => setTimeout(r, 20));
      return seen.includes(text);
    },
  };
}

// Raw bytes to the server, and what comes back until it closes (or `ms`).
export function rawExchange(base, bytes, ms = 5000) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const s = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    let got = '';
    const t = setTimeout(() => { s.destroy(); resolve({ got, closed: false }); }, ms);
    s.on('data', (d) => { got += d; });
    s.on('close', () => { clearTimeout(t); resolve({ got, closed: true }); });
    s.on('error', () => {});
    s.write(bytes);
  });
}
