// The command policy in `bsh mcp` (SPEC 13.9, 13.15): deny and ask as
// tool errors with their exact texts, the bash_policy tool, a client that
// elicits (approve, approve and remember, decline, cancel, no answer in
// time) over stdio and over HTTP, the 2026-07-28 era's input_required
// round trip, the session's aliases and functions, and --ask sandbox.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { BSH, rawServer, scratchDir } from './helpers.mjs';
import { startServer } from './http_helpers.mjs';
import { validated } from './validate.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEV = join(HERE, '..', 'policy', 'dev.rules');
const NEEDS = 'This command needs a person\'s approval and this client cannot ask for it; ' +
  'ask the user to run it, or to allow it in the policy.';

// A stdio client; `answer(request)` (when given) answers elicitations,
// and every question asked is kept in `asked`.
async function client(args = [], answer = null) {
  const cwd = scratchDir('bsh-policy');
  const transport = new StdioClientTransport({
    command: BSH, args: ['mcp', '--policy', DEV, ...args], stderr: 'ignore', cwd,
  });
  const v = validated(transport);
  const c = new Client({ name: 'bsh-policy-tests', version: '1' },
    { capabilities: answer ? { elicitation: {} } : {} });
  const asked = [];
  if (answer) {
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return answer(req);
    });
  }
  await c.connect(transport);
  const close = c.close.bind(c);
  c.close = async () => { // every message of the session met its schema
    await close();
    if (v.failure) throw v.failure;
  };
  return { c, asked, cwd, v };
}

const run = (c, command, extra = {}) =>
  c.callTool({ name: 'bash_run', arguments: { command, ...extra } });

test('deny: the rule, its justification, nothing run', async () => {
  const { c, cwd } = await client();
  const r = await run(c, 'touch made; rm -rf made');
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text,
    `policy: denied: rm -rf made\nrule: ${DEV}:19\nreason: no deleting; ask the user`);
  assert.equal(r.structuredContent.exit_code, null);
  assert.equal(r.structuredContent.signal, null);
  assert.equal(r.structuredContent.stdout, '');
  assert.equal(r.structuredContent.policy.decision, 'deny');
  const cmds = r.structuredContent.policy.commands;
  assert.deepEqual(cmds.map((x) => [x.words, x.decision]),
    [[['touch', 'made'], 'allow'], [['rm', '-rf', 'made'], 'deny']]);
  assert.equal(cmds[1].rule.justification, 'no deleting; ask the user');
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(readdirSync(cwd), [], 'nothing ran, not even touch');
  // opaque: the reason, no rule line
  const o = await run(c, 'echo `echo \\`id\\``');
  assert.equal(o.content[0].text.startsWith('policy: approval needed: '), true);
  await c.close();
});

test('ask without elicitation: approval needed; tools/list and bash_policy', async () => {
  const { c } = await client();
  const r = await run(c, 'git push origin main');
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text,
    `policy: approval needed: git push origin main (${DEV}:9: pushing publishes)\n${NEEDS}`);
  assert.equal(r.structuredContent.policy.decision, 'ask');
  const ok = await run(c, 'echo fine | cat');
  assert.equal(ok.content[0].text, 'fine\n');
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('bash_policy'));
  const br = tools.find((t) => t.name === 'bash_run');
  assert.match(br.description, /checked against the user's command policy/);
  assert.ok(br.outputSchema.properties.policy, 'outputSchema describes policy');
  const p = await c.callTool({ name: 'bash_policy', arguments: { command: 'git status && git push' } });
  assert.equal(p.isError, false);
  assert.equal(p.structuredContent.decision, 'ask');
  assert.equal(p.structuredContent.guard, null);
  assert.deepEqual(p.structuredContent.commands.map((x) => x.decision), ['allow', 'ask']);
  assert.deepEqual(JSON.parse(p.content[0].text), p.structuredContent);
  const g = await c.callTool({ name: 'bash_policy', arguments: { command: 'rm -rf /' } });
  assert.equal(g.structuredContent.decision, 'deny');
  assert.match(g.structuredContent.guard, /Pattern match found/);
  await c.close();
});

test('without a policy bash_policy is not offered', async () => {
  const transport = new StdioClientTransport({ command: BSH, args: ['mcp'], stderr: 'ignore' });
  const c = new Client({ name: 't', version: '1' });
  await c.connect(transport);
  const { tools } = await c.listTools();
  assert.ok(!tools.map((t) => t.name).includes('bash_policy'));
  await assert.rejects(c.callTool({ name: 'bash_policy', arguments: { command: 'ls' } }),
    /Unknown tool/);
  await c.close();
});

test('elicitation: approve runs it once; remember makes it run unasked', async () => {
  let remember = false;
  const { c, asked } = await client([], async () =>
    ({ action: 'accept', content: { approve: true, remember } }));
  const r = await run(c, 'git push 2>/dev/null; echo pushed');
  assert.equal(r.content[0].text, 'pushed\n');
  assert.equal(asked.length, 1);
  assert.equal(asked[0].message, `Run this command?\n\ngit push\n\n${DEV}:9: pushing publishes`);
  assert.deepEqual(asked[0].requestedSchema, {
    type: 'object',
    properties: {
      approve: { type: 'boolean', title: 'Run it', default: false },
      remember: { type: 'boolean', title: 'Allow this exact command again in this session', default: false },
    },
    required: ['approve'],
  });
  await run(c, 'git push 2>/dev/null; echo again');
  assert.equal(asked.length, 2, 'asked again: not remembered');
  remember = true;
  await run(c, 'git push 2>/dev/null; true');
  assert.equal(asked.length, 3);
  const quiet = await run(c, 'git push 2>/dev/null; echo unasked');
  assert.equal(quiet.content[0].text, 'unasked\n');
  assert.equal(asked.length, 3, 'remembered for exactly these words');
  await run(c, 'git push --force 2>/dev/null; true');
  assert.equal(asked.length, 4, 'other words are asked about');
  const denied = await run(c, 'rm x');
  assert.equal(denied.isError, true, 'deny is never asked about');
  assert.equal(asked.length, 4);
  await c.close();
});

test('elicitation: decline, cancel, approve false and an error refuse', async () => {
  const answers = [{ action: 'decline' }, { action: 'cancel' },
    { action: 'accept', content: { approve: false } }];
  const { c, cwd } = await client([], async () => {
    const a = answers.shift();
    if (!a) throw new Error('no');
    return a;
  });
  for (let i = 0; i < 4; i++) {
    const r = await run(c, 'npm publish; touch ran');
    assert.equal(r.isError, true);
    assert.equal(r.content[0].text,
      `policy: not approved: npm publish (${DEV}:17: publishing is for people)`);
    assert.equal(r.structuredContent.policy.decision, 'ask');
  }
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(readdirSync(cwd), []);
  await c.close();
});

test('elicitation: no answer within --ask-timeout refuses', async () => {
  const { c } = await client(['--ask-timeout', '300'], () => new Promise(() => {}));
  const t0 = Date.now();
  const r = await run(c, 'git push');
  assert.ok(Date.now() - t0 < 5000);
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /^policy: not approved: git push /);
  await c.close();
});

// A raw legacy peer that declares elicitation; `reply` skips (and keeps)
// everything else.
async function rawEliciting(args = []) {
  const s = rawServer(['--policy', DEV, ...args]);
  s.send({ jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} },
      clientInfo: { name: 'raw', version: '1' } } });
  await s.next(10000);
  s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return s;
}
async function until(s, pred, seen = []) {
  for (;;) {
    const m = await s.next(10000);
    seen.push(m);
    if (pred(m)) return m;
  }
}
const RELATED = 'io.modelcontextprotocol/related-task';

test('legacy task: it waits in input_required for the approval, then runs', async () => {
  const s = await rawEliciting();
  const dir = scratchDir('bsh-policy-task');
  s.call(1, { command: 'git push 2>/dev/null; echo pushed', cwd: dir }, { task: { ttl: 60000 } });
  const seen = [];
  const q = await until(s, (m) => m.method === 'elicitation/create', seen);
  const created = await until(s, (m) => m.id === 1, seen);
  const { task } = created.result;
  assert.equal(task.status, 'working', 'a task begins working');
  assert.equal(q.params._meta[RELATED].taskId, task.taskId, 'the question names its task');
  assert.equal(q.params.message, `Run this command?\n\ngit push\n\n${DEV}:9: pushing publishes`);
  await until(s, (m) => m.method === 'notifications/tasks/status' && m.params.status === 'input_required', seen);
  s.send({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: task.taskId } });
  const got = await until(s, (m) => m.id === 2);
  assert.equal(got.result.status, 'input_required');
  assert.match(got.result.statusMessage, /approval/);
  s.send({ jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId: task.taskId } });
  // a cancel naming the server's own held id (an object) is not one of
  // the client's requests: ignored
  s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: { taskId: task.taskId } } });
  s.send({ jsonrpc: '2.0', id: q.id, result: { action: 'accept', content: { approve: true } } });
  const notes = [];
  const r = await until(s, (m) => m.id === 3, notes);
  assert.equal(r.result.content[0].text, 'pushed\n');
  assert.equal(r.result._meta[RELATED].taskId, task.taskId);
  const statuses = notes.filter((m) => m.method === 'notifications/tasks/status').map((m) => m.params.status);
  assert.deepEqual(statuses, ['working', 'completed']);
  s.send({ jsonrpc: '2.0', id: 30, method: 'tasks/get', params: { taskId: task.taskId } });
  const ended = (await until(s, (m) => m.id === 30)).result;
  assert.equal(ended.status, 'completed');
  assert.equal(ended.statusMessage, 'the command ended');

  // declined: the task fails with the refusal, and nothing ran
  s.call(4, { command: 'npm publish; touch ran', cwd: dir }, { task: {} });
  const q2 = await until(s, (m) => m.method === 'elicitation/create');
  const t2 = (await until(s, (m) => m.id === 4)).result.task;
  s.send({ jsonrpc: '2.0', id: q2.id, result: { action: 'decline' } });
  await until(s, (m) => m.method === 'notifications/tasks/status' && m.params.status === 'failed');
  s.send({ jsonrpc: '2.0', id: 5, method: 'tasks/result', params: { taskId: t2.taskId } });
  const r2 = (await until(s, (m) => m.id === 5)).result;
  assert.equal(r2.isError, true);
  assert.equal(r2.content[0].text, `policy: not approved: npm publish (${DEV}:17: publishing is for people)`);
  assert.equal(r2.structuredContent.policy.decision, 'ask');

  // cancelled while it waits: the question is withdrawn, a late yes runs nothing
  s.call(6, { command: 'npm publish; touch ran', cwd: dir }, { task: {} });
  const q3 = await until(s, (m) => m.method === 'elicitation/create');
  const t3 = (await until(s, (m) => m.id === 6)).result.task;
  s.send({ jsonrpc: '2.0', id: 7, method: 'tasks/cancel', params: { taskId: t3.taskId } });
  const cancelSeen = [];
  const c3 = await until(s, (m) => m.id === 7, cancelSeen);
  assert.equal(c3.result.status, 'cancelled');
  assert.ok(cancelSeen.some((m) => m.method === 'notifications/cancelled' && m.params.requestId === q3.id));
  s.send({ jsonrpc: '2.0', id: q3.id, result: { action: 'accept', content: { approve: true } } });
  s.send({ jsonrpc: '2.0', id: 8, method: 'tasks/result', params: { taskId: t3.taskId } });
  const r3 = (await until(s, (m) => m.id === 8)).result;
  assert.equal(r3.isError, true);
  assert.match(r3.content[0].text, /cancelled before its command ran/);
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(readdirSync(dir), [], 'neither refused command ran');
  s.close();
  assert.equal(await s.exited, 0);
});

test('elicitation over HTTP: the question comes on the call\'s stream', async () => {
  const s = await startServer(['--policy', DEV]);
  try {
    const transport = new StreamableHTTPClientTransport(new URL(s.url));
    const c = new Client({ name: 'bsh-http-policy', version: '1' }, { capabilities: { elicitation: {} } });
    let asked = 0;
    c.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'accept', content: { approve: true } };
    });
    await c.connect(transport);
    const r = await run(c, 'git push 2>/dev/null; echo over-http');
    assert.equal(r.content[0].text, 'over-http\n');
    assert.equal(asked, 1);
    const d = await run(c, 'rm -rf x');
    assert.match(d.content[0].text, /^policy: denied: rm -rf x\nrule: /);
    await c.close();
  } finally {
    assert.equal(await s.stop(), 0);
  }
});

test('2026-07-28: input_required, then the retry with the answer', async () => {
  const srv = rawServer(['--policy', DEV]);
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  };
  const args = { command: 'git push 2>/dev/null; echo modern' };
  srv.call(1, args, { _meta: meta });
  const q = await srv.next();
  assert.equal(q.result.resultType, 'input_required');
  const ask = q.result.inputRequests.approve;
  assert.equal(ask.method, 'elicitation/create');
  assert.equal(ask.params.mode, 'form');
  assert.match(q.result.requestState, /^[0-9a-f]{32}$/);
  // another command with that state gets nothing from it
  srv.call(2, { command: 'git push --force' }, {
    _meta: meta, requestState: q.result.requestState,
    inputResponses: { approve: { action: 'accept', content: { approve: true } } },
  });
  const wrong = await srv.next();
  assert.equal(wrong.result.isError, true);
  assert.match(wrong.result.content[0].text, /^policy: not approved: /);
  // the same command with another env (or cwd) is another call
  srv.call(20, args, { _meta: meta });
  const q1 = await srv.next();
  srv.call(21, { ...args, env: { PATH: '/nowhere' } }, {
    _meta: meta, requestState: q1.result.requestState,
    inputResponses: { approve: { action: 'accept', content: { approve: true } } },
  });
  const other = await srv.next();
  assert.equal(other.result.isError, true);
  assert.match(other.result.content[0].text, /^policy: not approved: /);
  srv.call(3, args, { _meta: meta });
  const q2 = await srv.next();
  srv.call(4, args, {
    _meta: meta, requestState: q2.result.requestState,
    inputResponses: { approve: { action: 'accept', content: { approve: true } } },
  });
  const done = await srv.next();
  assert.equal(done.result.resultType, 'complete');
  assert.equal(done.result.content[0].text, 'modern\n');
  // a client that did not declare elicitation is told approval is needed
  srv.call(5, args, { _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': {} } });
  const no = await srv.next();
  assert.match(no.result.content[0].text, /^policy: approval needed: git push /);
  srv.close();
  assert.equal(await srv.exited, 0);
  assert.equal(srv.validator.failure, undefined);
});

test('sessions: the policy sees the session\'s aliases and functions', async () => {
  const { c, asked } = await client([], async () => ({ action: 'accept', content: { approve: true } }));
  // an alias and a function whose bodies the policy allows
  await run(c, "alias gs='git status'; st() { git status --short; }", { session: 's1' });
  const a = await c.callTool({ name: 'bash_policy', arguments: { command: 'gs', session: 's1' } });
  assert.equal(a.structuredContent.decision, 'allow');
  assert.deepEqual(a.structuredContent.commands.at(-1).via, ['alias gs']);
  const f = await c.callTool({ name: 'bash_policy', arguments: { command: 'st', session: 's1' } });
  assert.equal(f.structuredContent.decision, 'allow');
  const other = await c.callTool({ name: 'bash_policy', arguments: { command: 'gs', session: 's2' } });
  assert.equal(other.structuredContent.decision, 'ask', 'another session has no such alias');
  // a function that shadows a command is decided by its body
  await run(c, 'cat() { git push; }', { session: 's1' });
  assert.equal(asked.length, 1, 'defining it asked (its body pushes)');
  const shadow = await c.callTool({ name: 'bash_policy', arguments: { command: 'cat x', session: 's1' } });
  assert.equal(shadow.structuredContent.decision, 'ask');
  const plain = await c.callTool({ name: 'bash_policy', arguments: { command: 'command cat x', session: 's1' } });
  assert.equal(plain.structuredContent.decision, 'allow');
  await c.close();
});

test('--ask sandbox: an ask runs read-only, and says so', async () => {
  const { c, cwd } = await client(['--ask', 'sandbox']);
  const r = await run(c, 'git push 2>/dev/null; touch here; echo $?');
  assert.match(r.content[0].text,
    new RegExp(`^policy: ran read-only instead of asking: git push \\(${DEV.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:9: pushing publishes\\)\n`));
  assert.equal(r.structuredContent.policy.ran, 'readonly');
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(readdirSync(cwd), [], 'nothing written');
  const d = await run(c, 'rm x');
  assert.match(d.content[0].text, /^policy: denied: /, 'deny still refuses');
  const ok = await run(c, 'echo plain > out.txt; cat out.txt');
  assert.equal(ok.content[0].text, 'plain\n', 'allow runs as configured');
  // a read-only run changes nothing, its session's state included: what
  // it set never reaches the next (unsandboxed) run
  const ro = await run(c, 'export PATH=/nowhere:$PATH; git push 2>/dev/null; f() { :; }');
  assert.equal(ro.structuredContent.policy.ran, 'readonly');
  assert.equal(ro.structuredContent.session_state, 'unchanged');
  assert.match(ro.content[0].text, /a read-only run changes nothing/);
  const after = await run(c, 'case $PATH in /nowhere:*) echo kept;; *) echo clean;; esac; declare -F f || echo no f');
  assert.equal(after.content[0].text, 'clean\nno f\n');
  await c.close();
});

test('the call\'s env is decided too: a listed name is opaque', async () => {
  const { c, cwd } = await client();
  const r = await run(c, 'git diff; touch ran', { env: { GIT_EXTERNAL_DIFF: 'rm -f x;:' } });
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text,
    `policy: approval needed: export GIT_EXTERNAL_DIFF (opaque: assignment to GIT_EXTERNAL_DIFF)\n${NEEDS}`);
  const b = await run(c, 'true', { env: { BASH_ENV: '/dev/stdin' }, input: 'touch ran' });
  assert.match(b.content[0].text, /assignment to BASH_ENV/);
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(readdirSync(cwd), [], 'nothing ran');
  const fine = await run(c, 'echo "$FOO $LANG"', { env: { FOO: 'bar', LANG: 'C.UTF-8' } });
  assert.equal(fine.content[0].text, 'bar C.UTF-8\n');
  const d = await run(c, 'rm -rf made', { env: { PATH: '/x' } });
  assert.match(d.content[0].text, /^policy: denied: rm -rf made/, 'a deny stays a deny');
  await c.close();
});

test('a bad policy file: bsh mcp exits 125 before serving', async () => {
  const { spawnSync } = await import('node:child_process');
  const p = spawnSync(BSH, ['mcp', '--policy', '/nonexistent.rules'], { input: '', encoding: 'utf8' });
  assert.equal(p.status, 125);
  assert.equal(p.stderr, 'bsh: policy: /nonexistent.rules: cannot read: No such file or directory\n');
});
