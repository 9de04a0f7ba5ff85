// The escape suite through the MCP server: each technique a command uses
// to outlive its call, ended by the call's normal end, its timeout, a
// cancel, the end of the server's input and SIGTERM to the server, with a
// cgroup per call and with the server as subreaper. Survivors are counted
// by a marker unique to each cell, found in any command line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BSH, rawServer, scratchDir } from './helpers.mjs';

// The techniques, shared with the CLI's and the library's suites: a name,
// a tab and a command in which @M@ stands for the marker.
const techniques = Object.fromEntries(
  readFileSync(new URL('../data/escape_techniques.tsv', import.meta.url), 'utf8')
    .split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')));
const ends = ['normal end', 'timeout', 'cancel', 'end of input', 'SIGTERM'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function count(marker) {
  const r = spawnSync('pgrep', ['-f', '--', marker], { encoding: 'utf8' });
  return r.stdout.split('\n').filter((pid) => {
    if (!pid) return false;
    try {
      const stat = execFileSync('cat', [`/proc/${pid}/stat`], { encoding: 'utf8' });
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch { return false; }
  }).length;
}

// Survivors, after up to 2 s for the killed to go; then none are left.
async function survivors(marker) {
  let n = count(marker);
  for (let i = 0; i < 100 && n > 0; i++) {
    await sleep(20);
    n = count(marker);
  }
  for (let i = 0; i < 50 && count(marker) > 0; i++) {
    spawnSync('pkill', ['-9', '-f', '--', marker]);
    await sleep(20);
  }
  return n;
}

async function waitFor(path, ms = 5000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) {
    if (existsSync(path)) return true;
  }
  return false;
}

async function cell(containment, tech, end, marker, dir) {
  const flag = join(dir, `ran-${marker}`);
  const body = techniques[tech].replaceAll('@M@', marker);
  const command = end === 'normal end'
    ? `{\n${body}\n} >/dev/null 2>&1\ntouch ${flag}\nsleep 0.2`
    : `${body}\ntouch ${flag}\nsleep 30`;
  const s = rawServer(['--containment', containment]);
  s.call(1, { command, ...(end === 'timeout' ? { timeout_ms: 600 } : {}) });
  let reply;
  if (end === 'normal end' || end === 'timeout') {
    reply = await s.next(10000);
    s.close();
    await s.exited;
  } else {
    await waitFor(flag);
    if (end === 'cancel') {
      s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
      s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      reply = await s.next(10000); // the ping's: the call is over
      await sleep(100);
    }
    if (end === 'SIGTERM') s.child.kill('SIGTERM');
    else s.close();
    await s.exited;
  }
  const ran = existsSync(flag);
  const left = await survivors(marker);
  return { ran, left, reply };
}

const hasCgroup = spawnSync(BSH, ['run', '--containment', 'cgroup', 'true']).status === 0;

for (const containment of ['cgroup', 'subreaper']) {
  test(`mcp, ${containment}: nothing outlives a call`, { skip: containment === 'cgroup' && !hasCgroup && 'no cgroup here' }, async () => {
    const dir = scratchDir('bsh-escape');
    const bad = [];
    let t = 0;
    for (const tech of Object.keys(techniques)) {
      t++;
      const results = await Promise.all(ends.map((end, e) =>
        cell(containment, tech, end, `96${containment[0] === 'c' ? 1 : 2}${String(t).padStart(2, '0')}${e}.75`, dir)));
      results.forEach((r, e) => {
        if (!r.ran) bad.push(`${tech}, ${ends[e]}: did not run`);
        if (r.left > 0) bad.push(`${tech}, ${ends[e]}: ${r.left} left`);
      });
      const timeout = results[1].reply?.result?.structuredContent?.report;
      if (timeout?.containment !== containment) bad.push(`${tech}: the report says ${timeout?.containment}`);
    }
    rmSync(dir, { recursive: true, force: true });
    assert.ok(Object.keys(techniques).length >= 12);
    assert.deepEqual(bad, [], `${Object.keys(techniques).length} techniques x ${ends.length} ends`);
  });
}

// As the subreaper, the server ends a call's orphans when the call ends,
// even while another call goes on, when that call began after the orphans
// did: an orphan does not say which call it came from, but one started
// before every call still going began came from a call that has ended.
test('mcp, subreaper: a call\'s orphans end with it while a later call goes on', async () => {
  const dir = scratchDir('bsh-escape');
  const bad = [];
  let t = 0;
  for (const tech of Object.keys(techniques)) {
    t++;
    const marker = `963${String(t).padStart(2, '0')}0.75`;
    const flag = join(dir, `ran-${marker}`);
    const body = techniques[tech].replaceAll('@M@', marker);
    const s = rawServer(['--containment', 'subreaper']);
    s.call(1, { command: `{\n${body}\n} >/dev/null 2>&1\ntouch ${flag}\nsleep 2.5` });
    await waitFor(flag);
    // The technique's last fork is done: python starts in ~0.1 s, and in
    // more than 0.6 s on a machine busy with other tests.
    await sleep(1500);
    s.call(2, { command: 'sleep 30', session: 'later' }); // runs at once
    const reply = await s.next(10000);
    if (reply.id !== 1) bad.push(`${tech}: the long call ended first`);
    let left = count(marker);
    for (let i = 0; i < 100 && left > 0; i++) {
      await sleep(20);
      left = count(marker);
    }
    if (left > 0) bad.push(`${tech}: ${left} left while the later call runs`);
    s.close();
    await s.exited;
    await survivors(marker);
  }
  rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(bad, [], `${Object.keys(techniques).length} techniques`);
});
