// The screen of a PTY run (SPEC 10): bash_output {"screen": true} shows what
// a terminal fed every byte shows, so a model can drive vi, less or a REPL
// with bash_write. The README's vi example, step by step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawServer } from './helpers.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function tool(s, id, name, args) {
  s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  return s.next(15000).then((m) => m.result);
}

// Asks for the screen until `pred` holds (a full-screen program draws a
// little after it reads its input).
async function screenWhen(s, id, rid, pred) {
  let r;
  for (let i = 0; i < 50; i++) {
    r = await tool(s, id * 100 + i, 'bash_output', { run_id: rid, screen: true });
    if (pred(r.structuredContent.screen)) return r;
    await sleep(100);
  }
  return r;
}

test('README: open a file in vi, type, save, quit, all through the screen', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bsh-screen-'));
  const s = rawServer(['-p', '--no-sessions']);
  const run = await tool(s, 1, 'bash_run', { command: `vi ${dir}/notes.txt`, yield_ms: 1000, rows: 10, cols: 40 });
  const rid = run.structuredContent.run_id;
  assert.notEqual(run.structuredContent.state, 'exited');
  let r = await screenWhen(s, 2, rid, (sc) => sc.lines[1] === '~');
  const sc = r.structuredContent.screen;
  assert.equal(sc.rows, 10);
  assert.equal(sc.cols, 40);
  assert.equal(sc.lines.length, 10);
  assert.equal(sc.alternate, true, 'vi is on the alternate screen');
  assert.deepEqual(sc.cursor, { row: 1, col: 1 });
  assert.match(r.content[0].text, /^(still running|waiting for input .*) as run r\d+\n/);
  assert.equal(r.structuredContent.stdout, '', 'a screen reply carries no output');
  await tool(s, 3, 'bash_write', { run_id: rid, input: 'ihello from bsh\x1b', wait_ms: 300 });
  r = await screenWhen(s, 4, rid, (x) => x.lines[0] === 'hello from bsh');
  assert.equal(r.structuredContent.screen.lines[0], 'hello from bsh');
  assert.deepEqual(r.structuredContent.screen.cursor, { row: 1, col: 14 }, 'the cursor on the last letter');
  const end = await tool(s, 5, 'bash_write', { run_id: rid, input: ':wq\r', wait_ms: 5000 });
  assert.equal(end.structuredContent.state, 'exited');
  assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'hello from bsh\n');
  s.close();
  await s.exited;
  rmSync(dir, { recursive: true, force: true });
});

test('less on the alternate screen, and the last screen of an ended run', async () => {
  const s = rawServer(['-p', '--no-sessions']);
  const run = await tool(s, 1, 'bash_run', { command: 'seq 1 100 | LESS= less', yield_ms: 1000 });
  const rid = run.structuredContent.run_id;
  let r = await screenWhen(s, 2, rid, (sc) => sc.lines[0] === '1');
  assert.equal(r.structuredContent.screen.lines[22], '23');
  assert.equal(r.structuredContent.screen.rows, 24);
  await tool(s, 3, 'bash_write', { run_id: rid, input: 'G', wait_ms: 300 });
  r = await screenWhen(s, 4, rid, (sc) => sc.lines.includes('100'));
  assert.ok(r.structuredContent.screen.lines.includes('100'), 'G shows the end');
  await tool(s, 5, 'bash_write', { run_id: rid, input: 'q', wait_ms: 0 });
  s.close();
  await s.exited;
});

test('screen of a pipe-mode run, or rows and cols without a PTY: tool errors that say why', async () => {
  const s = rawServer(['--no-sessions']);
  const run = await tool(s, 1, 'bash_run', { command: 'sleep 2', yield_ms: 100 });
  const r = await tool(s, 2, 'bash_output', { run_id: run.structuredContent.run_id, screen: true });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /has no screen: it runs on pipes/);
  const sized = await tool(s, 3, 'bash_run', { command: 'true', rows: 30 });
  assert.equal(sized.isError, true);
  assert.match(sized.content[0].text, /rows and cols size a PTY run/);
  s.close();
  await s.exited;
});

test('rows and cols are bounded', async () => {
  const s = rawServer(['-p', '--no-sessions']);
  for (const [args, what] of [[{ rows: 1 }, /rows must be an integer from 2 to 200/],
    [{ cols: 501 }, /cols must be an integer from 10 to 500/]]) {
    const r = await tool(s, 1, 'bash_run', { command: 'true', ...args });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, what);
  }
  const r = await tool(s, 2, 'bash_run', { command: 'stty size', rows: 30, cols: 100 });
  assert.match(r.content[0].text, /^30 100/);
  s.close();
  await s.exited;
});
