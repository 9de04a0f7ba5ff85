// `bsh mcp` driven by the official MCP TypeScript SDK client
// (Client + StdioClientTransport), as an AI agent would use it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connect, gone, scratchDir } from './helpers.mjs';

let client;
before(async () => { client = await connect(); });
after(async () => { await client.closeValidated(); });

const run = (command, extra = {}, options) =>
  client.callTool({ name: 'bash_run', arguments: { command, ...extra } }, undefined, options);

test('tools/list offers bash_run with its input schema, and the run tools', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name),
    ['bash_run', 'bash_output', 'bash_write', 'bash_kill', 'bash_list', 'bash_session']);
  for (const k of ['yield_ms', 'idle_timeout_ms']) assert.equal(tools[0].inputSchema.properties[k].type, 'integer');
  assert.equal(tools[0].inputSchema.properties.input.type, 'string');
  assert.deepEqual(tools[2].inputSchema.required, ['run_id', 'input']);
  for (const t of tools) assert.ok(t.title && t.annotations, `${t.name} has a title and annotations`);
  assert.equal(tools[0].annotations.destructiveHint, true);
  assert.equal(tools[1].annotations.readOnlyHint, true);
  assert.equal(tools[0].inputSchema.type, 'object');
  assert.deepEqual(tools[0].inputSchema.required, ['command']);
  assert.equal(tools[0].inputSchema.properties.command.type, 'string');
  assert.equal(tools[0].inputSchema.properties.timeout_ms.type, 'integer');
});

test('a plain call returns the output', async () => {
  const r = await run('echo hello');
  assert.equal(r.isError, false);
  assert.deepEqual(r.content, [{ type: 'text', text: 'hello\n' }]);
  assert.equal(r.structuredContent.exit_code, 0);
  assert.equal(r.structuredContent.stdout, 'hello\n');
});

test('stderr follows stdout, a non-zero exit is an error', async () => {
  const r = await run('echo out; echo err >&2; exit 3');
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, 'out\nerr\nexit code: 3');
  assert.equal(r.structuredContent.exit_code, 3);
  assert.equal(r.structuredContent.stderr, 'err\n');
});

test('death by signal', async () => {
  const r = await run('kill -TERM $$');
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, 'signal: 15');
  assert.equal(r.structuredContent.signal, 15);
  assert.equal(r.structuredContent.exit_code, null);
});

test('invalid UTF-8 is replaced, not lost', async () => {
  const r = await run("printf 'a\\377b'");
  assert.match(r.content[0].text,
    /^a\uFFFDb\n\[bsh: 1 invalid UTF-8 byte left out; the log \/\S+ has every byte\]$/);
  assert.equal(r.structuredContent.stdout, 'a\uFFFDb');
});

test('a timeout kills the command and says so', async () => {
  const t0 = Date.now();
  const r = await run('echo started; sleep 10', { timeout_ms: 300 });
  assert.ok(Date.now() - t0 < 3000);
  assert.equal(r.isError, true);
  // The line before the ending says what was still running, and on what.
  assert.match(r.content[0].text,
    /^started\nstill running: sleep \(pid \d+, sleeping in \w+\)\n(?:\[bsh: session state not saved: [^\]]*\]\n)?timed out after 300 ms$/);
  assert.equal(r.structuredContent.timed_out, true);
  const rep = r.structuredContent.report;
  assert.equal(rep.reason, 'timeout');
  assert.equal(rep.signal, -1);
  assert.equal(rep.stdout_bytes, 8);
  assert.ok(['cgroup', 'subreaper'].includes(rep.containment));
  // In a session bash stays (an EXIT trap, even for a command that cannot
  // change the state), so it is killed with sleep; without one, bash runs
  // its last command with exec.
  assert.equal(rep.killed, r.structuredContent.session ? 2 : 1);
  assert.equal(rep.escaped, 0);
  assert.deepEqual(rep.diagnosis.map((p) => p.comm).filter((c) => c !== 'bash'), ['sleep']);
  const sleep = rep.diagnosis.find((p) => p.comm === 'sleep');
  assert.equal(sleep.state, 'S');
  assert.deepEqual(Object.keys(sleep.fds), ['0', '1', '2']);
  assert.equal(sleep.fds['0'], '/dev/null');
});

test('every reply carries the end report', async () => {
  const r = await run('echo hi; exit 3');
  const rep = r.structuredContent.report;
  assert.equal(rep.reason, 'exit');
  assert.equal(rep.exit_code, 3);
  assert.equal(rep.signal, null);
  assert.equal(rep.limit, null);
  assert.equal(rep.stdout_bytes, 3);
  assert.equal(rep.stderr_bytes, 0);
  assert.ok(rep.wall_ms >= 0 && rep.cpu_user_ms >= 0 && rep.cpu_sys_ms >= 0);
  assert.deepEqual(rep.diagnosis, []);
});

test('a guard rejection runs nothing', async () => {
  const r = await run('rm -rf /');
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /^Pattern match found: \(\?i\)\\brm/);
  const abs = await run('/bin/echo hi');
  assert.equal(abs.content[0].text, 'absolute command not allowed, use relative path');
});

test('a cancelled call has its process killed', async () => {
  const dir = scratchDir('bsh-mcp');
  const pidfile = join(dir, 'pid');
  const ac = new AbortController();
  const call = run(`sleep 100 & echo $! > ${pidfile}; wait`, {}, { signal: ac.signal });
  let pid;
  for (let i = 0; i < 100 && !pid; i++) {
    await new Promise((r) => setTimeout(r, 30));
    try { pid = Number(readFileSync(pidfile, 'utf8')); } catch { /* not yet */ }
  }
  assert.ok(pid > 0, 'the command started');
  ac.abort();
  await assert.rejects(call);
  assert.ok(await gone(pid), 'the cancelled call\'s process is gone');
  await client.ping(); // and the server still serves
});

test('progress notifications while output arrives', async () => {
  const seen = [];
  const r = await run('for i in 1 2 3 4; do echo $i; sleep 0.25; done', {}, {
    onprogress: (p) => seen.push(p.progress),
  });
  assert.equal(r.content[0].text, '1\n2\n3\n4\n');
  assert.ok(seen.length >= 2, `got ${seen.length} notifications`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1]);
});

test('calls run in parallel and never block the server', async () => {
  const t0 = Date.now();
  // Sessions of their own: calls in one session run one after the other.
  const slow = run('sleep 1; echo a', { session: 'pa' });
  const slow2 = run('sleep 1; echo b', { session: 'pb' });
  const p0 = Date.now();
  await client.ping();
  assert.ok(Date.now() - p0 < 500, 'ping answered while calls run');
  const [a, b] = await Promise.all([slow, slow2]);
  assert.equal(a.content[0].text, 'a\n');
  assert.equal(b.content[0].text, 'b\n');
  assert.ok(Date.now() - t0 < 1900, 'two 1 s calls took under 2 s');
});

test('16 calls in flight at once', async () => {
  const t0 = Date.now();
  const calls = [];
  for (let i = 0; i < 16; i++) calls.push(run(`sleep 0.5; echo ${i}`, { session: `p${i}` }));
  const results = await Promise.all(calls);
  results.forEach((r, i) => assert.equal(r.content[0].text, `${i}\n`));
  assert.ok(Date.now() - t0 < 4000);
});

test('large output: head and tail kept, the whole output spilled to a file', async () => {
  const r = await run("seq 1 30000; echo tail-marker >&2");
  const text = r.content[0].text;
  assert.ok(text.length <= 30000 + 300, `text is ${text.length} characters`);
  assert.ok(text.startsWith('1\n2\n3\n'), 'the head is kept');
  assert.ok(text.endsWith('29999\n30000\ntail-marker\n'), 'the tail is kept');
  const m = text.match(/bytes omitted; the whole output is in (\S+\.log)/);
  assert.ok(m, 'the log file is named');
  const full = readFileSync(m[1], 'utf8');
  assert.equal(full.length, statSync(m[1]).size);
  assert.ok(full.includes('\n15000\n') && full.includes('tail-marker'), 'nothing lost');
  assert.ok(r.structuredContent.truncated_bytes > 0);
});

test('PTY mode: escapes removed, CRLF turned into LF', async () => {
  const pty = await connect(['-p']);
  const r = await pty.callTool({ name: 'bash_run', arguments: {
    command: "printf '\\033[31mred\\033[0m\\n'; test -t 1 && echo tty" } });
  assert.match(r.content[0].text,
    /^red\ntty\n\[bsh: 2 escape sequences left out; the log \/\S+ has every byte\]$/);
  assert.equal(r.structuredContent.stdout, 'red\ntty\n');
  await pty.close();
});

test('server configuration: cwd, env and default timeout apply to every call', async () => {
  const c = await connect(['-C', '/tmp', '-e', 'GREETING=hi', '-t', '300']);
  const r = await c.callTool({ name: 'bash_run', arguments: { command: 'pwd; echo $GREETING' } });
  assert.equal(r.content[0].text, '/tmp\nhi\n');
  const t = await c.callTool({ name: 'bash_run', arguments: { command: 'sleep 5' } });
  assert.match(t.content[0].text, /^still running: sleep .*\n(?:\[bsh: session state not saved: [^\]]*\]\n)?timed out after 300 ms$/);
  await c.close();
});

test('bsh mcp --sandbox confines every call and reports its layers', async () => {
  const c = await connect(['--sandbox', '-C', '/tmp']);
  const r = await c.callTool({ name: 'bash_run', arguments: {
    command: 'echo ok > bsh-mcp-sandbox-$$ && rm bsh-mcp-sandbox-$$ && echo tmp; echo x > /etc/bsh-mcp-sandbox' } });
  assert.equal(r.structuredContent.stdout, 'tmp\n');
  assert.match(r.structuredContent.stderr, /Permission denied/);
  const { sandbox } = r.structuredContent.report;
  assert.equal(sandbox.mode, 'strict');
  assert.equal(sandbox.layers.landlock_fs, 'applied');
  assert.equal(sandbox.layers.seccomp, 'applied');
  await c.closeValidated();
});
