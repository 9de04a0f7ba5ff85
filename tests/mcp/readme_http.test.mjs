// The README's curl example of `bsh mcp --listen`, run as it stands (on a
// free port instead of 8080, with the bsh under test).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { BSH, scratchDir } from './helpers.mjs';

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

test('README: the curl example of bsh mcp --listen', async () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /<!-- http-example -->\n```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'the README has the example');
  const port = await freePort();
  // Should the example fail half-way, its server is still stopped.
  const script = 'trap \'[ -z "${server:-}" ] || kill "$server" 2>/dev/null || true\' EXIT\n'
    + block[1].replaceAll('8080', String(port)).replace(/^bsh mcp/m, '"$BSH" mcp');
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
    env: { ...process.env, BSH }, cwd: scratchDir('bsh-readme'), timeout: 30000,
  });
  const lines = stdout.split('\n').filter((l) => l.trim());
  const ready = JSON.parse(lines[0]);
  assert.equal(ready.status, 'ok');
  const modern = JSON.parse(lines[1]);
  assert.equal(modern.result.structuredContent.stdout, 'hi\n');
  const legacy = JSON.parse(lines[2]);
  assert.equal(legacy.result.structuredContent.stdout, 'Linux\n');
  assert.equal(lines.length, 3, 'DELETE answers with no body');
});
