// The npm packages as their users take them: `npx` of the packed tarballs
// starts the MCP server, and the official SDK client lists its tools and
// calls bash_run. Run by tests/package/test_npm.sh.
// Usage: node npx_package.mjs MAIN.tgz PLATFORM.tgz
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [main, platform] = process.argv.slice(2).map((p) => resolve(p));
// A cache of its own: nothing installed before can stand in for the tarballs.
const cache = mkdtempSync(join(tmpdir(), 'bsh-npx-cache-'));
const transport = new StdioClientTransport({
  command: 'npx',
  args: ['--yes', `--package=${platform}`, `--package=${main}`, 'bsh-mcp', '--yield', '5000'],
  env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' },
  stderr: 'inherit',
});
const client = new Client({ name: 'npx-package-test', version: '1.0.0' });
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('bash_run'), `tools: ${names}`);
  console.log(`ok: npx started the server; tools: ${names.join(', ')}`);
  const reply = await client.callTool({
    name: 'bash_run',
    arguments: { command: 'echo from-npx $((6*7)); exit 3' },
  });
  const text = reply.content.map((c) => c.text).join('');
  assert.match(text, /from-npx 42/);
  assert.equal(reply.structuredContent.exit_code, 3);
  console.log('ok: bash_run answered through the npx-started server');
} finally {
  await client.close();
  rmSync(cache, { recursive: true, force: true });
}
