// Faults found by attacking `bsh mcp` from outside, each replayed: a client
// that does not read, signals that orphaned calls, a spill file that grew
// without bound, overflowing timeouts, NUL in a command, the call limit
// under the usual fd limit, the budget in characters, and PTY escapes
// that swallowed the tail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { rawServer, gone, alive, waitForNumber, scratchDir } from './helpers.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const scratch = () => scratchDir('bsh-faults');

test('a client that does not read: deadlines still win, replies wait in order', async (t) => {
  const dir = scratch();
  const s = rawServer();
  t.after(() => s.child.kill('SIGKILL')); // a failed check leaves no server behind
  s.child.stdout.pause();
  s.call(1, { command: `echo $$ > ${dir}/pid; exec sleep 30`, timeout_ms: 500 });
  const pid = await waitForNumber(join(dir, 'pid'));
  for (let i = 0; i < 400; i++) s.send({ jsonrpc: '2.0', id: 100 + i, method: 'tools/list' });
  await sleep(1500);
  assert.ok(!alive(pid), 'the call was killed at its deadline although nothing was read');
  s.child.stdout.resume();
  const ids = new Set();
  let timedOut = false;
  for (let i = 0; i < 401; i++) {
    const r = await s.next(10000);
    ids.add(r.id);
    if (r.id === 1) timedOut = r.result.structuredContent.timed_out;
  }
  assert.equal(ids.size, 401, 'every reply arrives');
  assert.ok(timedOut, 'the call timed out');
  s.close();
  assert.equal(await s.exited, 0);
});

for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1']) {
  test(`${sig} kills every running call, then the server exits 128+N`, async () => {
    const dir = scratch();
    const s = rawServer();
    s.call(1, { command: `sleep 100 & echo $! > ${dir}/a; wait` });
    // A session of its own: calls in one session run one after the other.
    s.call(2, { command: `sleep 100 & echo $! > ${dir}/b; wait`, session: 'b' });
    const a = await waitForNumber(join(dir, 'a'));
    const b = await waitForNumber(join(dir, 'b'));
    s.child.kill(sig);
    const code = await s.exited;
    const numbers = { SIGTERM: 15, SIGINT: 2, SIGHUP: 1, SIGQUIT: 3, SIGUSR1: 10 };
    assert.equal(code, 128 + numbers[sig]);
    assert.ok(await gone(a), 'the first call\'s process is gone');
    assert.ok(await gone(b), 'and the second\'s');
  });
}

test('spill logs: private, capped, removed at exit (kept with --keep-logs)', async () => {
  for (const keep of [false, true]) {
    const tmp = scratch();
    const s = rawServer(keep ? ['--keep-logs'] : [], { env: { ...process.env, TMPDIR: tmp } });
    // 70 MB, then silence: the idle timeout ends it, however long the
    // output took on a busy machine (a fixed 2 s of `yes` was sometimes
    // less than the 64 MiB cap).
    s.call(1, { command: 'head -c 70000000 /dev/zero | tr "\\0" y; sleep 60',
      idle_timeout_ms: 1000, timeout_ms: 120000 });
    const r = await s.next(130000);
    const text = r.result.content[0].text;
    const m = text.match(/the first (\d+) bytes of the output are in (\S+) \(the log was cut at its size limit\)/);
    assert.ok(m, 'the marker says the log was cut, and where');
    assert.equal(statSync(m[2]).size, Number(m[1]));
    assert.equal(Number(m[1]), 64 << 20, 'at 64 MiB');
    assert.equal(statSync(m[2]).mode & 0o777, 0o600);
    const logdir = join(m[2], '..');
    assert.equal(statSync(logdir).mode & 0o777, 0o700);
    assert.equal(r.result.structuredContent.timed_out, true);
    s.close();
    assert.equal(await s.exited, 0);
    assert.equal(existsSync(logdir), keep, keep ? 'kept with --keep-logs' : 'removed at exit');
    if (!keep) assert.deepEqual(readdirSync(tmp), []);
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('huge timeouts neither overflow nor time out at once', async () => {
  const s = rawServer();
  for (const [id, t] of [[1, 10000000000000], [2, 9007199254740991]]) {
    s.call(id, { command: 'echo ok', timeout_ms: t });
    const r = await s.next();
    assert.equal(r.id, id);
    assert.equal(r.result.content[0].text, 'ok\n');
    assert.equal(r.result.isError, false);
  }
  s.close();
  await s.exited;
});

test('a NUL in a command: a tool error that carries the id', async () => {
  const s = rawServer();
  s.send('{"jsonrpc":"2.0","id":"nul","method":"tools/call","params":{"name":"bash_run","arguments":{"command":"echo a\\u0000b"}}}');
  const r = await s.next();
  assert.equal(r.id, 'nul');
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /cannot contain a NUL/);
  s.close();
  await s.exited;
});

test('256 calls at once under a soft fd limit of 1024', async () => {
  // --no-sessions: 256 calls of one session would run one after another.
  const s = rawServer(['--max-runs', '256', '--no-sessions'], { shell: 'ulimit -Sn 1024' });
  for (let i = 0; i < 256; i++) s.call(i, { command: 'sleep 1; echo done' });
  let good = 0;
  for (let i = 0; i < 256; i++) {
    const r = await s.next(30000);
    if (!r.result.isError && r.result.content[0].text === 'done\n') good++;
  }
  assert.equal(good, 256);
  s.close();
  assert.equal(await s.exited, 0);
});

test('past the fd-sized run limit: a clear tool error', async () => {
  // (200 - 32) / 8 = 21; --no-sessions: the calls start at once
  const s = rawServer(['--no-sessions'], { shell: 'ulimit -n 200' });
  for (let i = 0; i < 22; i++) s.call(i, { command: 'sleep 1' });
  const r = await s.next(10000);
  assert.equal(r.id, 21);
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /too many runs held \(at most 21 at once\)/);
  for (let i = 0; i < 21; i++) assert.equal((await s.next(10000)).result.isError, false);
  s.close();
  await s.exited;
});

test('the budget counts characters: 20,000 é come back whole', async () => {
  const s = rawServer();
  s.call(1, { command: "printf 'é%.0s' $(seq 20000)" });
  const r = await s.next();
  assert.equal(r.result.content[0].text, 'é'.repeat(20000));
  assert.equal(r.result.structuredContent.truncated_bytes, 0);
  s.call(2, { command: "printf 'é%.0s' $(seq 40000)" });
  const cut = (await s.next()).result.content[0].text;
  assert.ok([...cut].length <= 30000, 'a cut reply fits the budget, markers included');
  assert.ok(!cut.includes('\ufffd'), 'no character split');
  s.close();
  await s.exited;
});

test('PTY, reduced: an OSC that never ends is removed to the end, and the reply says so', async () => {
  const s = rawServer(['-p']);
  s.call(1, { command: "head -c 14990 /dev/zero | tr '\\0' a; printf '\\033]'; head -c 40000 /dev/zero | tr '\\0' b; echo END" });
  const r = (await s.next(10000)).result;
  const text = r.content[0].text;
  assert.ok(text.startsWith('aaaa'));
  assert.ok(!text.includes('bbb'), 'a terminal shows none of the string');
  assert.match(text, /\n\[bsh: 1 escape sequence left out; the log \/\S+ has every byte\]$/);
  assert.equal(r.structuredContent.reduced.escape_sequences, 1);
  s.close();
  await s.exited;
});

test('PTY, --raw-output: an escape in the head does not swallow the marker and the tail', async () => {
  const s = rawServer(['-p', '--raw-output']);
  s.call(1, { command: "head -c 14990 /dev/zero | tr '\\0' a; printf '\\033]'; head -c 40000 /dev/zero | tr '\\0' b; echo END" });
  const text = (await s.next(10000)).result.content[0].text;
  assert.ok(text.startsWith('aaaa'));
  assert.match(text, /bytes omitted/);
  assert.ok(text.endsWith('bbbEND\n'), 'the tail is there');
  s.close();
  await s.exited;
});

test('idle_timeout_ms ends a silent call; --grace sends SIGTERM first', async () => {
  const s = rawServer(['--grace', '2000']);
  s.call(1, { command: 'echo a; sleep 10', idle_timeout_ms: 300 });
  let r = await s.next(5000);
  assert.match(r.result.content[0].text,
    /^a\nstill running: sleep \(pid \d+, sleeping in \w+\)\n(?:\[bsh: session state not saved: [^\]]*\]\n)?timed out: no output for 300 ms$/);
  assert.equal(r.result.structuredContent.report.reason, 'idle');
  assert.equal(r.result.structuredContent.timed_out, true);
  s.call(2, { command: "trap 'echo bye; exit 0' TERM; echo up; sleep 10 & wait", timeout_ms: 300 });
  r = await s.next(5000);
  assert.match(r.result.content[0].text,
    /^up\nbye\nstill running: sleep \(pid \d+, .*\)\n(?:\[bsh: session state not saved: [^\]]*\]\n)?timed out after 300 ms$/);
  s.call(3, { command: 'true', idle_timeout_ms: 0 });
  assert.equal((await s.next()).result.isError, true);
  s.close();
  await s.exited;
});
