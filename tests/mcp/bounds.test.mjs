// What a long MCP session must not do (found by attacking the server from
// outside): kill processes it never started, keep its orphans as zombies,
// grow without bound on input nobody reads or on finished tasks, and
// describe a log cut by a full disk as cut at its size limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { rawServer, alive, waitForNumber, scratchDir } from './helpers.mjs';

const dir = scratchDir('bsh-bounds');

// The reply to `id`: notifications are skipped, replies to other ids kept
// for their own turn.
async function reply(s, id, ms = 10000) {
  s.early ??= new Map();
  for (;;) {
    if (s.early.has(id)) return s.early.get(id);
    const m = await s.next(ms);
    if (m.id === id) return m;
    if (m.id !== undefined) s.early.set(m.id, m);
  }
}

const tool = (s, id, name, args) => s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

test('a child the server had before it began is never killed, nor its group', async () => {
  const pidfile = join(dir, 'before.pid');
  // `tail -f log & exec bsh mcp`: the sleep leads a group of its own.
  const s = rawServer([], { shell: `set -m; sleep 1000 & echo $! > ${pidfile}; set +m` });
  const before = await waitForNumber(pidfile);
  s.call(1, { command: 'echo one; (setsid sleep 999 >/dev/null 2>&1 &)' });
  assert.match((await reply(s, 1)).result.content[0].text, /one/);
  s.call(2, { command: 'echo two' });
  assert.match((await reply(s, 2)).result.content[0].text, /two/);
  s.close();
  await s.exited;
  const wasAlive = alive(before);
  process.kill(before, 'SIGKILL');
  assert.ok(wasAlive, 'the process from before the server is alive after two calls and the end');
});

test('orphans of a held run are reaped as they exit: no zombie piles up', async () => {
  const s = rawServer();
  // Each (true &) leaves an orphan that comes to the server and exits.
  s.call(1, {
    command: 'for i in $(seq 60); do (true &); done; '
      + 'for t in $(seq 50); do z=$(ps -o stat= --ppid $PPID | grep -c Z); '
      + '[ "$z" = 0 ] && break; sleep 0.1; done; echo zombies=$z',
  });
  assert.match((await reply(s, 1)).result.content[0].text, /zombies=0/);
  s.close();
  await s.exited;
});

test('bash_write to a run that does not read: bounded, and the error says how much waits', async () => {
  const s = rawServer();
  s.call(1, { command: 'sleep 30', stdin: true, yield_ms: 0 });
  const id = (await reply(s, 1)).result.structuredContent.run_id;
  const chunk = 'x'.repeat(3 << 20);
  tool(s, 2, 'bash_write', { run_id: id, input: chunk });
  assert.equal((await reply(s, 2)).result.isError, false, 'the first write is kept');
  const errors = [];
  for (let i = 3; i < 8; i++) {
    tool(s, i, 'bash_write', { run_id: id, input: chunk });
    const r = (await reply(s, i)).result;
    if (r.isError) errors.push(r.content[0].text);
  }
  assert.equal(errors.length, 5, 'every later write is refused');
  assert.match(errors[0], /does not read its stdin: \d+ bytes of earlier input still wait \(at most 4194304 may\); this input \(3145728 bytes\) was not written/);
  tool(s, 9, 'bash_kill', { run_id: id });
  await reply(s, 9);
  s.close();
  await s.exited;
});

test('finished tasks are bounded, and tasks/list pages with nextCursor', async () => {
  const s = rawServer();
  s.send({ jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  await reply(s, 0);
  // A task that ends after the others, waited on: when it ends it is the
  // oldest ended, and goes at once, after its answer (it once was freed
  // while the server still walked it).
  s.call(900, { command: 'sleep 2; echo long' }, { task: { ttl: 3600000 } });
  const long = (await reply(s, 900)).result.task.taskId;
  s.send({ jsonrpc: '2.0', id: 901, method: 'tasks/result', params: { taskId: long } });
  const N = 300;
  const ids = [];
  for (let i = 1; i <= N; i += 20) { // in batches: under --max-runs
    for (let j = i; j < i + 20; j++) s.call(j, { command: 'true' }, { task: { ttl: 3600000 } });
    for (let j = i; j < i + 20; j++) ids.push((await reply(s, j)).result.task.taskId);
  }
  // Every task ends; then the list holds the newest 256 only.
  const seen = [];
  for (let round = 0; round < 100; round++) {
    seen.length = 0;
    let cursor;
    let id = 1000 + round * 10;
    do {
      s.send({ jsonrpc: '2.0', id, method: 'tasks/list', params: cursor ? { cursor } : {} });
      const r = (await reply(s, id++)).result;
      assert.ok(r.tasks.length <= 100, 'a page holds at most 100');
      seen.push(...r.tasks);
      cursor = r.nextCursor;
    } while (cursor);
    if (seen.every((t) => t.status === 'completed') && seen.length <= 256
      && !seen.some((t) => t.taskId === long)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(seen.length, 256, 'the oldest finished tasks were dropped');
  assert.deepEqual(seen.map((t) => t.taskId), ids.slice(N - 256).reverse(), 'newest first, each once');
  assert.equal((await reply(s, 901)).result.content[0].text, 'long\n');
  s.send({ jsonrpc: '2.0', id: 5000, method: 'tasks/list', params: { cursor: 'nonsense' } });
  assert.equal((await reply(s, 5000)).error.code, -32602);
  s.send({ jsonrpc: '2.0', id: 5001, method: 'tasks/get', params: { taskId: ids[0] } });
  assert.equal((await reply(s, 5001)).error.code, -32602, 'the dropped task is unknown');
  s.close();
  await s.exited;
});

test('a log cut by a full disk says so, not "its size limit"', async (t) => {
  const probe = spawnSync('unshare', ['-Urm', 'true']);
  if (probe.status !== 0) {
    t.skip('no user namespaces here to mount a small tmpfs in');
    return;
  }
  const small = scratchDir('bsh-full');
  const s = rawServer([], {
    shell: `exec unshare -Urm sh -c 'mount -t tmpfs -o size=256k tmpfs ${small} && TMPDIR=${small} exec "$0" mcp' "$0"`,
  });
  s.call(1, { command: 'head -c 2000000 /dev/zero | tr "\\0" x' });
  const text = (await reply(s, 1)).result.content.map((c) => c.text).join('');
  assert.match(text, /the first 262144 bytes of the output are in \S+ \(writing the log failed: No space left on device\)/);
  s.close();
  await s.exited;
});
