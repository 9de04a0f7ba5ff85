// The official MCP conformance suite against `bsh mcp --listen`: every
// server scenario that applies to a server offering tools only, on the
// 2025-11-25 wire (the suite's release) and, with its 2026-07-28 preview,
// the stateless wire and its header checks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { scratchDir } from './helpers.mjs';
import { startServer } from './http_helpers.mjs';

const require = createRequire(import.meta.url);
const suites = {
  release: require.resolve('@modelcontextprotocol/conformance/dist/index.js'),
  preview: require.resolve('conformance-next/dist/index.js'),
};
const register = new URL('./conformance_register.mjs', import.meta.url).href;
const work = scratchDir('bsh-conformance');
let server;
after(async () => server?.stop());

async function scenario(suite, name, extra = []) {
  server ??= await startServer();
  const { stdout } = await promisify(execFile)(process.execPath,
    ['--import', register, suites[suite], 'server', '--url', server.url, '--scenario', name,
      '-o', work, ...extra], { timeout: 120000, cwd: work }).catch((e) => e);
  const plain = stdout.replace(/\x1b\[[0-9;]*m/g, '');
  const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(plain);
  assert.ok(m, `no result line:\n${plain}`);
  assert.equal(m[3], '0', plain);
  assert.equal(m[1], m[2], plain);
}

for (const name of ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams',
  'dns-rebinding-protection']) {
  test(`conformance ${name}`, () => scenario('release', name));
}

for (const name of ['tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection',
  'http-header-validation']) {
  test(`conformance ${name} (2026-07-28)`,
    () => scenario('preview', name, ['--spec-version', '2026-07-28']));
}
