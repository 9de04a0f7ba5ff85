// Protocol-level tests of `bsh mcp` with raw JSON lines: versions, errors,
// limits, and the end of the session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawServer, gone, scratchDir } from './helpers.mjs';

const init = (id, version) => ({
  jsonrpc: '2.0', id, method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

test('initialize negotiates the protocol version', async () => {
  const s = rawServer();
  for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
    s.send(init(1, v));
    const r = await s.next();
    assert.equal(r.result.protocolVersion, v);
    const tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    assert.deepEqual(r.result.capabilities, v === '2025-11-25'
      ? { tools: { listChanged: false }, tasks } : { tools: { listChanged: false } });
    assert.equal(r.result.serverInfo.name, 'bsh');
  }
  s.send(init(2, '1999-01-01'));
  assert.equal((await s.next()).result.protocolVersion, '2025-11-25');
  s.close();
  assert.equal(await s.exited, 0);
});

test('JSON-RPC errors, and the server keeps serving', async () => {
  const s = rawServer();
  s.send('{not json');
  let r = await s.next();
  assert.equal('id' in r, false, 'an unknown id is left out, as the schemas want');
  assert.equal(r.error.code, -32700);
  s.send({ jsonrpc: '2.0', id: 'x', method: 'no/such/method' });
  r = await s.next();
  assert.equal(r.id, 'x');
  assert.equal(r.error.code, -32601);
  s.send({ id: 3, method: 'ping' });
  assert.equal((await s.next()).error.code, -32600);
  s.send([1, 2]);
  assert.equal((await s.next()).error.code, -32600);
  s.send({ jsonrpc: '2.0', id: null, method: 'ping' });
  r = await s.next();
  assert.equal('id' in r, false);
  assert.equal(r.error.code, -32600);
  // Bad arguments of a known tool are tool errors the model can read.
  s.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'bash_run', arguments: { command: 42 } } });
  r = await s.next();
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /bash_run: needs arguments.command, a string/);
  s.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'nope', arguments: {} } });
  r = await s.next();
  assert.equal(r.error.code, -32602);
  assert.match(r.error.message, /Unknown tool: nope/);
  s.send({ jsonrpc: '2.0', id: 6, method: 'tools/call' });
  assert.equal((await s.next()).error.code, -32602);
  s.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'bash_run', arguments: { command: 'true', timeout_ms: -1 } } });
  r = await s.next();
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /timeout_ms must be an integer >= 0/);
  s.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'bash_output', arguments: { run_id: 'r99' } } });
  r = await s.next();
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /no run 'r99'/);
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  s.send({ jsonrpc: '2.0', id: 8, method: 'ping' });
  r = await s.next();
  assert.deepEqual(r, { jsonrpc: '2.0', id: 8, result: {} });
  s.close();
  assert.equal(await s.exited, 0);
});

test('a line over the 4 MiB cap is refused, then the server goes on', async () => {
  const s = rawServer();
  s.send('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + 'x'.repeat(5 << 20) + '"}}');
  const r = await s.next();
  assert.equal(r.error.code, -32700);
  assert.match(r.error.message, /longer than/);
  s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  assert.deepEqual(await s.next(), { jsonrpc: '2.0', id: 2, result: {} });
  s.close();
  assert.equal(await s.exited, 0);
});

test('EOF on stdin kills running calls and exits 0', async () => {
  const dir = scratchDir('bsh-mcp');
  const pidfile = join(dir, 'pid');
  const s = rawServer();
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash_run', arguments: { command: `sleep 100 & echo $! > ${pidfile}; wait` } } });
  let pid;
  for (let i = 0; i < 100 && !pid; i++) {
    await new Promise((r) => setTimeout(r, 30));
    try { pid = Number(readFileSync(pidfile, 'utf8')); } catch { /* not yet */ }
  }
  assert.ok(pid > 0);
  s.close();
  assert.equal(await s.exited, 0);
  assert.ok(await gone(pid), 'the running call\'s process group was killed');
});

test('notifications/cancelled: no reply for that call, its process killed', async () => {
  const dir = scratchDir('bsh-mcp');
  const pidfile = join(dir, 'pid');
  const s = rawServer();
  s.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'bash_run', arguments: { command: `echo $$ > ${pidfile}; sleep 100` } } });
  let pid;
  for (let i = 0; i < 100 && !pid; i++) {
    await new Promise((r) => setTimeout(r, 30));
    try { pid = Number(readFileSync(pidfile, 'utf8')); } catch { /* not yet */ }
  }
  s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'test' } });
  assert.ok(await gone(pid));
  s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  assert.deepEqual(await s.next(), { jsonrpc: '2.0', id: 2, result: {} }, 'the next line is the ping reply, not the cancelled call');
  s.close();
  await s.exited;
});

test('progress notifications carry the token', async () => {
  const s = rawServer();
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bash_run', arguments: { command: 'echo a; sleep 0.3; echo b' }, _meta: { progressToken: 'tok' } } });
  const first = await s.next();
  assert.equal(first.method, 'notifications/progress');
  assert.equal(first.params.progressToken, 'tok');
  assert.ok(first.params.progress > 0); // elapsed milliseconds
  assert.match(first.params.message, /bytes of output/);
  let r, last = first.params.progress;
  do {
    r = await s.next();
    if (r.method) { assert.ok(r.params.progress > last); last = r.params.progress; }
  } while (r.method);
  assert.equal(r.id, 1);
  assert.equal(r.result.content[0].text, 'a\nb\n');
  s.close();
  await s.exited;
});
