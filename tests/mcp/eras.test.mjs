// Both eras of MCP on bsh mcp, driven by clients no one here wrote: the
// SDK v2 client in its three negotiation modes (legacy, auto, pinned to
// 2026-07-28), an older SDK v1 release, and the MCP Inspector's CLI mode;
// then the modern era's rules with raw lines. Every server message is
// checked against the schemas of its era (validate.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV117 } from 'sdk-v1-17/client/index.js';
import { StdioClientTransport as TransportV117 } from 'sdk-v1-17/client/stdio.js';
import { BSH, rawServer } from './helpers.mjs';
import { validated } from './validate.mjs';

const MODERN = '2026-07-28';
const meta = (extra = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});

async function v2Session(mode) {
  const transport = new StdioClientTransport({ command: BSH, args: ['mcp'], stderr: 'ignore' });
  const v = validated(transport);
  const client = new Client({ name: 'bsh-tests', version: '1' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return { client, v };
}

async function exercise(client) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name),
    ['bash_run', 'bash_output', 'bash_write', 'bash_kill', 'bash_list', 'bash_session']);
  for (const t of tools) assert.ok(t.title && t.annotations && t.outputSchema, t.name);
  const r = await client.callTool({ name: 'bash_run', arguments: { command: 'echo hi' } });
  assert.deepEqual(r.content, [{ type: 'text', text: 'hi\n' }]);
  assert.equal(r.structuredContent.state, 'exited');
  const bad = await client.callTool({ name: 'bash_run', arguments: { command: 1 } });
  assert.equal(bad.isError, true);
  return tools;
}

for (const [name, mode, version] of [
  ['legacy negotiation', 'legacy', '2025-11-25'],
  ['auto negotiation (probes server/discover)', 'auto', MODERN],
  ['pinned to 2026-07-28', { pin: MODERN }, MODERN],
]) {
  test(`SDK v2 client, ${name}`, async () => {
    const { client, v } = await v2Session(mode);
    assert.equal(client.getNegotiatedProtocolVersion(), version);
    const tools = await exercise(client);
    assert.equal(tools[0].execution?.taskSupport,
      version === MODERN ? undefined : 'optional', 'legacy tasks only in the legacy era');
    await client.close();
    if (v.failure) throw v.failure;
    assert.ok(v.count >= 3);
  });
}

test('SDK v1 1.17 client (2025-06-18)', async () => {
  const transport = new TransportV117({ command: BSH, args: ['mcp'], stderr: 'ignore' });
  const v = validated(transport);
  const client = new ClientV117({ name: 'bsh-tests', version: '1' });
  await client.connect(transport);
  assert.equal(v.protocolVersion, '2025-06-18');
  await exercise(client);
  await client.close();
  if (v.failure) throw v.failure;
});

const inspector = createRequire(import.meta.url)
  .resolve('@modelcontextprotocol/inspector/cli/build/cli.js');
const inspect = (...args) => promisify(execFile)(process.execPath,
  [inspector, '--cli', BSH, 'mcp', ...args], { timeout: 60000 });

test('MCP Inspector CLI mode: tools/list and a bash_run call', async () => {
  const list = JSON.parse((await inspect('--method', 'tools/list')).stdout);
  assert.equal(list.tools[0].name, 'bash_run');
  assert.equal(list.tools[0].annotations.destructiveHint, true);
  const call = JSON.parse((await inspect('--method', 'tools/call', '--tool-name', 'bash_run',
    '--tool-arg', 'command=echo from inspector')).stdout);
  assert.deepEqual(call.content, [{ type: 'text', text: 'from inspector\n' }]);
  assert.equal(call.structuredContent.exit_code, 0);
});

test('server/discover: versions, capabilities, caching hints', async () => {
  const s = rawServer();
  s.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } });
  const r = (await s.next()).result;
  assert.deepEqual(r.supportedVersions, [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  assert.deepEqual(r.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} });
  assert.equal(r.resultType, 'complete');
  assert.equal(r.cacheScope, 'public');
  assert.equal(r._meta['io.modelcontextprotocol/serverInfo'].name, 'bsh');
  s.close();
  assert.equal(await s.exited, 0);
});

test('an unsupported modern version: -32022 with data.supported', async () => {
  const s = rawServer();
  s.send({ jsonrpc: '2.0', id: 7, method: 'tools/list',
    params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }) } });
  const r = await s.next();
  assert.equal(r.id, 7);
  assert.equal(r.error.code, -32022);
  assert.equal(r.error.data.requested, '1900-01-01');
  assert.ok(r.error.data.supported.includes(MODERN));
  s.close();
  await s.exited;
});

test('both eras on one connection', async () => {
  const s = rawServer();
  s.send({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  assert.equal((await s.next()).result.protocolVersion, '2025-06-18');
  s.call(2, { command: 'echo legacy' });
  let r = await s.next();
  assert.equal(r.result.content[0].text, 'legacy\n');
  assert.equal(r.result.resultType, undefined);
  s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call',
    params: { name: 'bash_run', arguments: { command: 'echo modern' }, _meta: meta({ progressToken: 'p' }) } });
  r = await s.next();
  assert.equal(r.result.content[0].text, 'modern\n');
  assert.equal(r.result.resultType, 'complete');
  s.send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: meta() } });
  r = (await s.next()).result;
  assert.equal(r.ttlMs, 3600000);
  assert.equal(r.tools[0].execution, undefined);
  s.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
  assert.deepEqual((await s.next()).result, {});
  s.close();
  assert.equal(await s.exited, 0);
});
