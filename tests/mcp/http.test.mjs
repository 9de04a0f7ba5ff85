// `bsh mcp --listen`: MCP over Streamable HTTP, driven by the official
// SDK client and by raw requests. Both eras, sessions kept apart, who may
// connect, the bounds, SSE with resumption, instances, probes, drain.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gone, scratchDir, waitForNumber } from './helpers.mjs';
import {
  META, answerOf, modern, modernCall, modernHeaders, openSession, parseEvents, post,
  rawExchange, rawStream, sdkClient, startServer,
} from './http_helpers.mjs';

const dir = scratchDir('bsh-http');
const servers = [];
async function server(args, opts) {
  const s = await startServer(args, opts);
  servers.push(s);
  return s;
}
// Every server drains and exits 0 at the end, and its stderr shows no
// sanitizer report (the tests also run against the ASan+UBSan builds).
after(async () => {
  for (const s of servers) {
    assert.equal(await s.stop(), 0, s.stderr());
    assert.doesNotMatch(s.stderr(), /Sanitizer|runtime error/);
  }
});

function legacyCall(id, name, args, extra = {}) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra } };
}

test('the SDK client lists and calls every tool, follows progress, ends a held run', async () => {
  const s = await server();
  const { client, transport } = await sdkClient(s.url);
  assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(),
    ['bash_kill', 'bash_list', 'bash_output', 'bash_run', 'bash_session', 'bash_write']);
  const hi = await client.callTool({ name: 'bash_run', arguments: { command: 'echo hi' } });
  assert.equal(hi.structuredContent.stdout, 'hi\n');
  const progress = [];
  const slow = await client.callTool({ name: 'bash_run', arguments: { command: 'sleep 1.2; echo done' } },
    undefined, { onprogress: (p) => progress.push(p) });
  assert.equal(slow.structuredContent.stdout, 'done\n');
  assert.ok(progress.length >= 1, 'progress came over the event stream');
  const held = await client.callTool({ name: 'bash_run',
    arguments: { command: 'read line; echo "got $line"', yield_ms: 100, stdin: true } });
  const runId = held.structuredContent.run_id;
  assert.equal(held.structuredContent.state, 'running');
  const listed = await client.callTool({ name: 'bash_list', arguments: {} });
  assert.match(listed.content[0].text, new RegExp(runId));
  let end = await client.callTool({ name: 'bash_write',
    arguments: { run_id: runId, input: 'x\n', close_stdin: true } });
  if (end.structuredContent.state !== 'exited')
    end = await client.callTool({ name: 'bash_output', arguments: { run_id: runId, wait_ms: 5000 } });
  assert.equal(end.structuredContent.state, 'exited');
  assert.match(end.structuredContent.stdout, /got x/);
  const k = await client.callTool({ name: 'bash_run', arguments: { command: 'sleep 30', yield_ms: 50 } });
  const killed = await client.callTool({ name: 'bash_kill', arguments: { run_id: k.structuredContent.run_id } });
  assert.equal(killed.structuredContent.signal, 9);
  const sess = await client.callTool({ name: 'bash_session', arguments: { action: 'show' } });
  assert.equal(sess.isError, false);
  await transport.terminateSession();
  await client.close();
});

test('a task runs over HTTP: tools/call with task, then tasks/result', async () => {
  const s = await server();
  const sid = await openSession(s.url);
  const h = { 'Mcp-Session-Id': sid };
  const r = await answerOf(await post(s.url,
    legacyCall(1, 'bash_run', { command: 'sleep 0.2; echo tasked' }, { task: { ttl: 60000 } }), h));
  const { taskId } = r.result.task;
  const res = await answerOf(await post(s.url,
    { jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId } }, h));
  assert.equal(res.result.structuredContent.stdout, 'tasked\n');
});

test('MCP sessions are kept apart; DELETE ends one and kills its runs', async () => {
  const s = await server();
  const a = await openSession(s.url);
  const b = await openSession(s.url);
  const pidFile = join(dir, 'sess.pid');
  const held = await answerOf(await post(s.url,
    legacyCall(1, 'bash_run', { command: `echo $$ > ${pidFile}; sleep 60`, yield_ms: 100 }),
    { 'Mcp-Session-Id': a }));
  const runId = held.result.structuredContent.run_id;
  const pid = await waitForNumber(pidFile);
  const fromB = await answerOf(await post(s.url,
    legacyCall(2, 'bash_output', { run_id: runId }), { 'Mcp-Session-Id': b }));
  const never = await answerOf(await post(s.url,
    legacyCall(3, 'bash_output', { run_id: 'r999' }), { 'Mcp-Session-Id': b }));
  assert.equal(fromB.result.isError, true);
  assert.equal(fromB.result.content[0].text.replace(runId, 'ID'),
    never.result.content[0].text.replace('r999', 'ID'), 'another session\'s id reads as unknown');
  const kill = await answerOf(await post(s.url,
    legacyCall(4, 'bash_kill', { run_id: runId }), { 'Mcp-Session-Id': b }));
  assert.equal(kill.result.isError, true);
  const listB = await answerOf(await post(s.url, legacyCall(5, 'bash_list', {}), { 'Mcp-Session-Id': b }));
  assert.doesNotMatch(listB.result.content[0].text, new RegExp(runId));
  // One server stream per session: a second GET is a conflict.
  const ctl = new AbortController();
  const stream = await fetch(s.url, { signal: ctl.signal,
    headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': a } });
  assert.equal(stream.status, 200);
  assert.equal(stream.headers.get('content-type'), 'text/event-stream');
  const second = await fetch(s.url, { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': a } });
  assert.equal(second.status, 409);
  ctl.abort();
  const del = await fetch(s.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': a } });
  assert.equal(del.status, 200);
  assert.ok(await gone(pid), 'the ended session\'s run was killed');
  const after = await post(s.url, legacyCall(6, 'bash_list', {}), { 'Mcp-Session-Id': a });
  assert.equal(after.status, 404);
  assert.deepEqual(await after.json(),
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
  const unknown = await post(s.url, legacyCall(7, 'bash_list', {}), { 'Mcp-Session-Id': 'f'.repeat(32) });
  assert.equal(unknown.status, 404);
});

test('requests: 415, 406, 404, 405, parse error, 202 for a notification', async () => {
  const s = await server();
  const sid = await openSession(s.url);
  const type = await post(s.url, '{}', { 'Content-Type': 'text/plain' });
  assert.equal(type.status, 415);
  const acc = await post(s.url, '{}', { Accept: 'text/html' });
  assert.equal(acc.status, 406);
  assert.equal((await fetch(`${s.base}/other`)).status, 404);
  assert.equal((await fetch(s.url, { method: 'PUT' })).status, 405);
  const bad = await post(s.url, '{not json', { 'Mcp-Session-Id': sid });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.code, -32700);
  const note = await post(s.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': sid });
  assert.equal(note.status, 202);
  assert.equal(await note.text(), '');
  const ping = await answerOf(await post(s.url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { 'Mcp-Session-Id': sid }));
  assert.deepEqual(ping, { jsonrpc: '2.0', id: 9, result: {} }, 'the server goes on serving');
});

test('bounds: 413 (also chunked), 431, slow clients dropped without holding up others', async () => {
  const s = await server(['--max-body', '64K', '--max-header-bytes', '8K', '--client-timeout', '600']);
  const big = 'x'.repeat(70 * 1024);
  assert.equal((await post(s.url, big)).status, 413);
  const chunked = await rawExchange(s.base,
    'POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n'
    + 'Transfer-Encoding: chunked\r\n\r\n'
    + `${(70 * 1024).toString(16)}\r\n${big}\r\n0\r\n\r\n`);
  assert.match(chunked.got, /^HTTP\/1\.1 413/);
  const head = await post(s.url, '{}', { 'X-Pad': 'y'.repeat(9000) });
  assert.equal(head.status, 431);
  // A client that never finishes its request: dropped at its bound,
  // told 408, while another is served at once.
  const t0 = Date.now();
  const slow = rawExchange(s.base, 'POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Le', 5000);
  const fast = await fetch(`${s.base}/healthz`);
  assert.equal(fast.status, 200);
  const dropped = await slow;
  assert.ok(dropped.closed, 'the slow client was dropped');
  assert.match(dropped.got, /408/);
  assert.ok(Date.now() - t0 < 3000);
});

test('too many connections: 503 with Retry-After', async () => {
  const s = await server(['--max-connections', '2']);
  const net = await import('node:net');
  const { port } = new URL(s.base);
  const held = [];
  for (let i = 0; i < 2; i++) {
    const c = net.connect(Number(port), '127.0.0.1');
    await new Promise((r) => c.on('connect', r));
    held.push(c);
  }
  await new Promise((r) => setTimeout(r, 100));
  const third = await rawExchange(s.base, 'GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n', 3000);
  assert.match(third.got, /^HTTP\/1\.1 503/);
  assert.match(third.got, /Retry-After: 1/i);
  for (const c of held) c.destroy();
});

test('tokens: 401 with WWW-Authenticate and nothing else; Origin still checked', async () => {
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, 'alpha-token  \n\nbeta-token\n');
  chmodSync(tokens, 0o600);
  const s = await server(['--token-file', tokens, '--allow-origin', 'https://app.example']);
  const none = await post(s.url, '{}');
  assert.equal(none.status, 401);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer');
  assert.equal(await none.text(), '');
  assert.equal((await post(s.url, '{}', { Authorization: 'Bearer alpha-toke' })).status, 401);
  assert.equal((await post(s.url, '{}', { Authorization: 'Bearer alpha-token-x' })).status, 401);
  assert.equal((await fetch(`${s.base}/nope`)).status, 401, 'no token: 401 before any other answer');
  const auth = { Authorization: 'Bearer alpha-token' };
  assert.equal((await post(s.url, '{}', { ...auth, Origin: 'http://localhost.evil.example' })).status, 403);
  assert.equal((await post(s.url, '{}', { ...auth, Origin: 'null' })).status, 403);
  const sid = await openSession(s.url, { ...auth, Origin: 'https://app.example' });
  // The session is alpha's: beta's token does not reach it.
  const beta = await post(s.url, legacyCall(1, 'bash_list', {}),
    { Authorization: 'Bearer beta-token', 'Mcp-Session-Id': sid });
  assert.equal(beta.status, 404);
  const probe = await fetch(`${s.base}/healthz`);
  assert.equal(probe.status, 200, 'probes answer without a token');
  const { client } = await sdkClient(s.url, auth);
  const r = await client.callTool({ name: 'bash_run', arguments: { command: 'echo with-token' } });
  assert.equal(r.structuredContent.stdout, 'with-token\n');
  await client.close();
});

test('the 2026-07-28 era: headers checked against the body, runs owned by the token', async () => {
  const tokens = join(dir, 'tokens2');
  writeFileSync(tokens, 'one\ntwo\n');
  chmodSync(tokens, 0o600);
  const s = await server(['--token-file', tokens, '--instance', 'pod-a']);
  const one = { Authorization: 'Bearer one' };
  const two = { Authorization: 'Bearer two' };
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };
  const [ok, listed] = await modern(s.url, list, one);
  assert.equal(ok, 200);
  const output = listed.result.tools.find((t) => t.name === 'bash_output');
  assert.equal(output.inputSchema.properties.run_id['x-mcp-header'], 'Run-Id');
  let [status, msg] = await modern(s.url, list, { ...one, 'Mcp-Method': 'prompts/list' });
  assert.equal(status, 400);
  assert.equal(msg.error.code, -32020);
  const call = modernCall(2, 'bash_run', { command: 'sleep 30', yield_ms: 50 });
  [status, msg] = await modern(s.url, call, { ...one, 'Mcp-Name': 'bash_list' });
  assert.equal(status, 400);
  assert.equal(msg.error.code, -32020);
  const r = await post(s.url, call, { ...one, 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Name': 'bash_run' });
  assert.equal(r.status, 400, 'a missing Mcp-Method is refused');
  [status, msg] = await modern(s.url, call, one);
  assert.equal(status, 200);
  const runId = msg.result.structuredContent.run_id;
  assert.match(runId, /^r\d+@pod-a$/);
  const read = modernCall(3, 'bash_output', { run_id: runId });
  [status, msg] = await modern(s.url, read, { ...one, 'Mcp-Param-Run-Id': 'r0@pod-a' });
  assert.equal(msg.error.code, -32020, 'Mcp-Param-Run-Id must match run_id');
  [status, msg] = await modern(s.url, read, { ...one,
    'Mcp-Param-Run-Id': `=?base64?${Buffer.from(runId).toString('base64')}?=` });
  assert.equal(msg.result.structuredContent.state, 'running', 'a base64 header value is decoded');
  [status, msg] = await modern(s.url, read, two);
  assert.equal(msg.result.isError, true, 'another token does not see the run');
  assert.match(msg.result.content[0].text, /^no run/);
  [status, msg] = await modern(s.url, modernCall(4, 'bash_kill', { run_id: runId.replace('pod-a', 'pod-b') }), one);
  assert.match(msg.result.content[0].text, /instance 'pod-b'/);
  [status, msg] = await modern(s.url, modernCall(5, 'bash_kill', { run_id: runId }), one);
  assert.equal(msg.result.structuredContent.signal, 9);
  [status, msg] = await modern(s.url, { jsonrpc: '2.0', id: 6, method: 'nope/x', params: { _meta: META } }, one);
  assert.equal(status, 404);
  assert.equal(msg.error.code, -32601);
});

test('SSE: every event has an id; a closed POST goes on and resumes with Last-Event-ID', async () => {
  const s = await server();
  const sid = await openSession(s.url);
  const h = { 'Mcp-Session-Id': sid };
  const ctl = new AbortController();
  const r = await fetch(s.url, {
    method: 'POST', signal: ctl.signal,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...h },
    body: JSON.stringify(legacyCall(1, 'bash_run', { command: 'sleep 1.5; echo resumed' },
      { _meta: { progressToken: 'p1' } })),
  });
  assert.equal(r.headers.get('content-type'), 'text/event-stream');
  const reader = r.body.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const [event] = parseEvents(first);
  assert.match(event.id, /^\d+-0$/);
  assert.equal(JSON.parse(event.data).method, 'notifications/progress');
  ctl.abort(); // the client goes away: the call goes on
  await new Promise((res) => setTimeout(res, 1800));
  const again = await fetch(s.url, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': event.id, ...h } });
  assert.equal(again.status, 200);
  const events = parseEvents(await again.text());
  assert.ok(events.every((e) => /^\d+-\d+$/.test(e.id)));
  const last = JSON.parse(events.at(-1).data);
  assert.equal(last.id, 1);
  assert.equal(last.result.structuredContent.stdout, 'resumed\n');
  const unknown = await fetch(s.url, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': '999-0', ...h } });
  assert.equal(unknown.status, 404);
});

test('probes: /healthz and /readyz; readyz is 503 at --max-runs', async () => {
  const s = await server(['--max-runs', '1', '--instance', 'probe-1']);
  const health = await fetch(`${s.base}/healthz`);
  const body = await health.json();
  assert.equal(health.status, 200);
  for (const k of ['status', 'instance', 'draining', 'runs', 'max_runs']) assert.ok(k in body, k);
  assert.equal(body.instance, 'probe-1');
  assert.equal(typeof body.doctor.landlock_abi, 'number');
  assert.equal((await fetch(`${s.base}/readyz`)).status, 200);
  const sid = await openSession(s.url);
  await answerOf(await post(s.url, legacyCall(1, 'bash_run', { command: 'sleep 30', yield_ms: 50 }),
    { 'Mcp-Session-Id': sid }));
  const full = await fetch(`${s.base}/readyz`);
  assert.equal(full.status, 503);
  assert.equal((await full.json()).runs, 1);
});

test('SIGTERM drains: the call in flight gets its end, exit 0', async () => {
  const s = await startServer(['--drain-timeout', '5000']);
  const sid = await openSession(s.url);
  const h = { 'Mcp-Session-Id': sid };
  const pidFile = join(dir, 'drain.pid');
  const inFlight = post(s.url, legacyCall(1, 'bash_run', { command: `echo $$ > ${pidFile}; sleep 60` }), h)
    .then(answerOf);
  const pid = await waitForNumber(pidFile);
  const t0 = Date.now();
  s.child.kill('SIGTERM');
  const answer = await inFlight;
  assert.equal(answer.id, 1);
  assert.ok(answer.result.structuredContent.signal, 'the run was ended by a signal');
  assert.ok(await gone(pid));
  assert.equal(await s.exited, 0);
  assert.ok(Date.now() - t0 < 5000);
});

test('SIGTERM drains within --drain-timeout when a client never reads', async () => {
  const s = await startServer(['--drain-timeout', '800']);
  const sid = await openSession(s.url);
  // A GET stream that stops being read once open.
  const c = rawStream(s.base, sid);
  assert.ok(await c.until('200 OK', 5000), c.seen());
  c.socket.pause();
  const t0 = Date.now();
  s.child.kill('SIGTERM');
  assert.equal(await s.exited, 0);
  assert.ok(Date.now() - t0 < 3000, `exited in ${Date.now() - t0} ms`);
  c.socket.destroy();
});

test('a unix socket serves its owner without a token, and no one else', async () => {
  const open = join(dir, 'open');
  mkdirSync(open, { mode: 0o755 });
  chmodSync(open, 0o755); // others may look in: only the socket's mode keeps them out
  const path = join(open, 'bsh.sock');
  const s = await server([], { listen: `unix:${path}` });
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const { execFileSync, spawnSync } = await import('node:child_process');
  if (process.getuid() === 0) {
    const other = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups',
      'curl', '-s', '--unix-socket', path, 'http://localhost/healthz'], { encoding: 'utf8' });
    assert.notEqual(other.status, 0, 'another user cannot connect');
    assert.equal(other.stdout, '');
  }
  const out = execFileSync('curl', ['-s', '--unix-socket', path, 'http://localhost/healthz'], { encoding: 'utf8' });
  assert.equal(JSON.parse(out).status, 'ok');
  const init = execFileSync('curl', ['-s', '-i', '--unix-socket', path, '-H', 'Content-Type: application/json',
    '-d', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
    'http://localhost/mcp'], { encoding: 'utf8' });
  assert.match(init, /Mcp-Session-Id: [0-9a-f]{32}/);
  assert.ok(s.url === null);
});

test('startup refusals: exit 125 with a reason naming the file', async () => {
  const { spawnSync } = await import('node:child_process');
  const { BSH } = await import('./helpers.mjs');
  const run = (args) => spawnSync(BSH, ['mcp', ...args], { encoding: 'utf8', timeout: 5000 });
  let r = run(['--listen', '0.0.0.0:0']);
  assert.equal(r.status, 125);
  assert.match(r.stderr, /--token-file/);
  const open = join(dir, 'open-tokens');
  writeFileSync(open, 'x\n');
  chmodSync(open, 0o640);
  r = run(['--listen', '127.0.0.1:0', '--token-file', open]);
  assert.equal(r.status, 125);
  assert.match(r.stderr, new RegExp(`${open}.*group or others can read`));
  const empty = join(dir, 'empty-tokens');
  writeFileSync(empty, '\n   \n');
  chmodSync(empty, 0o600);
  r = run(['--listen', '127.0.0.1:0', '--token-file', empty]);
  assert.equal(r.status, 125);
  assert.match(r.stderr, /holds no token/);
  r = run(['--listen', '127.0.0.1:0', '--token-file', join(dir, 'missing')]);
  assert.equal(r.status, 125);
  assert.match(r.stderr, /missing/);
});

test('modern headers of a mirrored call (helpers are right)', () => {
  const h = modernHeaders(modernCall(1, 'bash_output', { run_id: 'r1' }));
  assert.deepEqual(h, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call',
    'Mcp-Name': 'bash_output', 'Mcp-Param-Run-Id': 'r1' });
});

// The SDK v2 client over HTTP: its pinned 2026-07-28 mode sends the
// standard headers (and Mcp-Param-Run-Id from the x-mcp-header of run_id),
// which the server checks against every body.
for (const [name, mode, version] of [
  ['legacy negotiation', 'legacy', '2025-11-25'],
  ['auto negotiation', 'auto', '2026-07-28'],
  ['pinned to 2026-07-28', { pin: '2026-07-28' }, '2026-07-28'],
]) {
  test(`SDK v2 client over HTTP, ${name}`, async () => {
    const { Client } = await import('@modelcontextprotocol/client');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const s = await server(['--instance', 'v2']);
    const client = new Client({ name: 'bsh-http-v2', version: '1' }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));
    assert.equal(client.getNegotiatedProtocolVersion(), version);
    const { tools } = await client.listTools();
    assert.equal(tools.length, 6);
    const r = await client.callTool({ name: 'bash_run', arguments: { command: 'echo v2' } });
    assert.equal(r.structuredContent.stdout, 'v2\n');
    const held = await client.callTool({ name: 'bash_run', arguments: { command: 'sleep 0.3; echo later', yield_ms: 50 } });
    const runId = held.structuredContent.run_id;
    assert.match(runId, /@v2$/);
    const end = await client.callTool({ name: 'bash_output', arguments: { run_id: runId, wait_ms: 5000 } });
    assert.equal(end.structuredContent.stdout, 'later\n');
    await client.close();
  });
}

test('a quiet GET stream gets keep-alive comments; one whose client left is let go', async () => {
  const s = await server();
  const sid = await openSession(s.url);
  const a = rawStream(s.base, sid);
  await a.until(': keep-alive', 20000);
  assert.match(a.seen(), /^HTTP\/1\.1 200/);
  assert.match(a.seen(), /: keep-alive\n\n/);
  a.socket.destroy(); // gone without a word: the next comment finds it out
  let status = 0;
  const t1 = Date.now();
  while (Date.now() - t1 < 25000) {
    const ctl = new AbortController();
    const r = await fetch(s.url, { signal: ctl.signal,
      headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sid } });
    status = r.status;
    ctl.abort();
    if (status === 200) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  assert.equal(status, 200, 'the stream of the client that left was let go');
});

test('hostile heads: every Origin is checked, a body framed twice is refused', async () => {
  const s = await server();
  const head = (extra) => rawExchange(s.base,
    `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}`
    + 'Content-Length: 2\r\n\r\n{}', 3000);
  assert.match((await head('Origin: http://localhost\r\nOrigin: http://evil.example\r\n')).got,
    /^HTTP\/1\.1 403/);
  assert.match((await head('Origin: http://evil.example\r\nOrigin: http://localhost\r\n')).got,
    /^HTTP\/1\.1 403/);
  assert.match((await head('Transfer-Encoding: chunked\r\n')).got, /^HTTP\/1\.1 400/);
  assert.match((await head('Content-Length: 5\r\n')).got, /^HTTP\/1\.1 400/);
  // A body value with a NUL matches no header value (C strings stop at it).
  const [status, msg] = await modern(s.url, modernCall(1, 'bash_output', { run_id: 'r1\u0000x' }),
    { 'Mcp-Param-Run-Id': 'r1' });
  assert.equal(status, 400);
  assert.equal(msg.error.code, -32020);
});

test('a client that reconnects its GET stream after losing it is not refused', async () => {
  const s = await server();
  const sid = await openSession(s.url);
  const a = rawStream(s.base, sid);
  assert.ok(await a.until('200 OK', 5000), a.seen());
  a.socket.destroy();
  await new Promise((r) => setTimeout(r, 100));
  const ctl = new AbortController();
  const again = await fetch(s.url, { signal: ctl.signal,
    headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sid } });
  assert.equal(again.status, 200);
  ctl.abort();
});

test('during the drain new requests get 503 with Retry-After; readyz says draining', async () => {
  const s = await startServer(['--grace', '2000', '--drain-timeout', '8000']);
  const sid = await openSession(s.url);
  const pidFile = join(dir, 'stubborn.pid');
  const inFlight = post(s.url, legacyCall(1, 'bash_run',
    { command: `trap '' TERM; echo $$ > ${pidFile}; sleep 60` }), { 'Mcp-Session-Id': sid })
    .then(answerOf);
  const pid = await waitForNumber(pidFile);
  s.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  const late = await post(s.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'Mcp-Session-Id': sid });
  assert.equal(late.status, 503);
  assert.equal(late.headers.get('retry-after'), '1');
  const ready = await fetch(`${s.base}/readyz`);
  assert.equal(ready.status, 503);
  assert.equal((await ready.json()).draining, true);
  assert.equal((await fetch(`${s.base}/healthz`)).status, 200);
  const answer = await inFlight;
  assert.equal(answer.result.structuredContent.signal, 9, 'killed after the grace');
  assert.ok(await gone(pid));
  assert.equal(await s.exited, 0);
});

test('clients of one token that use the same ids each get their own answers', async () => {
  const s = await server();
  const call = (command, token) => modern(s.url, {
    jsonrpc: '2.0', id: 1, method: 'tools/call',
    params: { name: 'bash_run', arguments: { command }, _meta: { ...META, progressToken: token } },
  });
  const [a, b] = await Promise.all([call('sleep 1; echo from-a', 1), call('sleep 0.2; echo from-b', 1)]);
  assert.equal(a[1].id, 1);
  assert.equal(b[1].id, 1);
  assert.equal(a[1].result.structuredContent.stdout, 'from-a\n');
  assert.equal(b[1].result.structuredContent.stdout, 'from-b\n');
});

test('a cancelled call ends its POST (204) and its run; a request named like a notification is refused', async () => {
  const s = await server();
  const sid = await openSession(s.url);
  const h = { 'Mcp-Session-Id': sid };
  const pidFile = join(dir, 'cancelled.pid');
  const t0 = Date.now();
  const pending = post(s.url, legacyCall(5, 'bash_run', { command: `echo $$ > ${pidFile}; sleep 60` }), h);
  const pid = await waitForNumber(pidFile);
  const note = await post(s.url, { jsonrpc: '2.0', method: 'notifications/cancelled',
    params: { requestId: 5, reason: 'user' } }, h);
  assert.equal(note.status, 202);
  const r = await pending;
  assert.equal(r.status, 204);
  assert.ok(Date.now() - t0 < 10000);
  assert.ok(await gone(pid), 'the cancelled call\'s run was killed');
  const odd = await answerOf(await post(s.url,
    { jsonrpc: '2.0', id: 6, method: 'notifications/cancelled', params: { requestId: 5 } }, h));
  assert.equal(odd.error.code, -32601);
});

test('MCP sessions are bounded: an idle one of the same token makes room, busy ones do not', async () => {
  const s = await server(['--max-connections', '2']);
  const first = await openSession(s.url);
  const second = await openSession(s.url);
  // Both idle: a third session takes the place of the oldest.
  const third = await openSession(s.url);
  assert.equal((await post(s.url, legacyCall(1, 'bash_list', {}), { 'Mcp-Session-Id': first })).status, 404);
  assert.equal((await post(s.url, legacyCall(2, 'bash_list', {}), { 'Mcp-Session-Id': second })).status, 200);
  // Both hold a run: a fourth is refused, and says why.
  for (const sid of [second, third])
    await answerOf(await post(s.url, legacyCall(3, 'bash_run', { command: 'sleep 30', yield_ms: 50 }),
      { 'Mcp-Session-Id': sid }));
  const refused = await post(s.url, {
    jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.match((await refused.json()).error.message, /too many MCP sessions/);
});
