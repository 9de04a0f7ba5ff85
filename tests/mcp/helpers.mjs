// Shared helpers for the MCP tests: where bsh is, a connected SDK client,
// and a raw line-level peer for protocol tests.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Validator, validated } from './validate.mjs';

export const BSH = process.env.BSH;
if (!BSH) throw new Error('set BSH to the bsh executable');

// A scratch directory under $TMPDIR, removed when the test file's process
// exits, whatever the tests did.
const scratchDirs = [];
process.on('exit', () => {
  for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
});
export function scratchDir(prefix) {
  const d = mkdtempSync(join(tmpdir(), `${prefix}-`));
  scratchDirs.push(d);
  return d;
}

export async function connect(args = []) {
  const transport = new StdioClientTransport({
    command: BSH, args: ['mcp', ...args], stderr: 'ignore',
  });
  const validator = validated(transport);
  const client = new Client({ name: 'bsh-tests', version: '1.0.0' });
  await client.connect(transport);
  // Closes, then fails if any message of the session broke its schema.
  client.closeValidated = async () => {
    await client.close();
    if (validator.failure) throw validator.failure;
    assert.ok(validator.count > 0, 'messages were checked');
  };
  return client;
}

// True while a process with this pid exists and is not a zombie.
export function alive(pid) {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return false;
  try {
    const stat = readFileSync(path, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

export async function gone(pid, ms = 3000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !alive(pid);
}

// A raw peer: write lines, read parsed reply lines in order, each checked
// against the schemas of its era (validate.mjs). `opts.shell` runs shell
// words first (e.g. a ulimit), `opts.env` replaces the environment.
export function rawServer(args = [], opts = {}) {
  const child = opts.shell
    ? spawn('bash', ['-c', `${opts.shell}; exec "$0" mcp "$@"`, BSH, ...args],
      { stdio: ['pipe', 'pipe', 'ignore'], env: opts.env ?? process.env })
    : spawn(BSH, ['mcp', ...args], { stdio: ['pipe', 'pipe', 'ignore'], env: opts.env ?? process.env });
  const lines = [];
  const waiters = [];
  const validator = new Validator();
  const rl = createInterface({ input: child.stdout });
  rl.on('line', (line) => {
    const w = waiters.shift();
    if (w) w(line); else lines.push(line);
  });
  const exited = new Promise((r) => child.on('exit', (code, signal) => r(code ?? signal)));
  return {
    child,
    exited,
    validator,
    send(obj) {
      validator.sent(obj);
      child.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n');
    },
    next(ms = 5000) {
      const parse = (line) => { const m = JSON.parse(line); validator.received(m); return m; };
      if (lines.length) return Promise.resolve(parse(lines.shift()));
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no reply in time')), ms);
        waiters.push((line) => {
          clearTimeout(t);
          try { resolve(parse(line)); } catch (e) { reject(e); }
        });
      });
    },
    close() { child.stdin.end(); },
    call(id, args, extra = {}) {
      this.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'bash_run', arguments: args, ...extra } });
    },
  };
}

// Waits for a file that a command writes (its pid, say) and returns its
// contents as a number.
export async function waitForNumber(path, ms = 5000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const n = Number(readFileSync(path, 'utf8'));
      if (n > 0) return n;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${path} was not written in time`);
}
