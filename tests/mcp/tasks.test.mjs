// Tasks in both eras: a task is a run of the server, cancelling it kills
// the run, tasks/get follows it (working, input_required for a PTY run
// waiting for input, completed, failed, cancelled). The 2025-11-25 tasks
// with the SDK v1 client's experimental API and with raw lines; the
// 2026-07-28 extension with raw lines. Every message is schema-checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, rawServer, gone, waitForNumber, scratchDir } from './helpers.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const meta = (caps = { extensions: { [TASKS]: {} } }) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': caps,
});
const dir = scratchDir('bsh-tasks');

// The next reply to `id`, skipping notifications (kept in `notes`).
async function reply(s, id, notes = []) {
  for (;;) {
    const m = await s.next(10000);
    if (m.id === id) return m;
    notes.push(m);
  }
}

function legacyServer(args = []) {
  const s = rawServer(args);
  s.send({ jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  return s;
}

const request = (s, id, method, params) => s.send({ jsonrpc: '2.0', id, method, params });

test('legacy: a task runs, tasks/result waits for its end, status is notified', async () => {
  const s = legacyServer();
  assert.ok((await reply(s, 0)).result.capabilities.tasks.requests.tools.call);
  s.call(1, { command: 'sleep 0.3; echo done' }, { task: { ttl: 60000 } });
  const { task } = (await reply(s, 1)).result;
  assert.equal(task.status, 'working');
  assert.equal(task.ttl, 60000);
  request(s, 2, 'tasks/get', { taskId: task.taskId });
  assert.equal((await reply(s, 2)).result.status, 'working');
  const notes = [];
  request(s, 3, 'tasks/result', { taskId: task.taskId });
  const r = (await reply(s, 3, notes)).result;
  assert.equal(r.content[0].text, 'done\n');
  assert.equal(r._meta['io.modelcontextprotocol/related-task'].taskId, task.taskId);
  assert.ok(notes.some((n) => n.method === 'notifications/tasks/status'
    && n.params.taskId === task.taskId && n.params.status === 'completed'));
  request(s, 4, 'tasks/list', {});
  assert.deepEqual((await reply(s, 4)).result.tasks.map((t) => [t.taskId, t.status]),
    [[task.taskId, 'completed']]);
  request(s, 5, 'tasks/cancel', { taskId: task.taskId });
  assert.equal((await reply(s, 5)).error.code, -32602, 'an ended task cannot be cancelled');
  request(s, 6, 'tasks/get', { taskId: 'task-none' });
  assert.equal((await reply(s, 6)).error.code, -32602);
  s.close();
  assert.equal(await s.exited, 0);
});

test('legacy: cancelling a task kills its run; a failing command is a failed task', async () => {
  const s = legacyServer();
  await reply(s, 0);
  const pidFile = join(dir, 'legacy.pid');
  s.call(1, { command: `sleep 60 & echo $! > ${pidFile}; wait` }, { task: {} });
  const { task } = (await reply(s, 1)).result;
  const pid = await waitForNumber(pidFile);
  request(s, 2, 'tasks/cancel', { taskId: task.taskId });
  assert.equal((await reply(s, 2)).result.status, 'cancelled');
  assert.ok(await gone(pid), 'the run was killed');
  request(s, 3, 'tasks/result', { taskId: task.taskId });
  assert.equal((await reply(s, 3)).result.isError, true);
  s.call(4, { command: 'exit 3' }, { task: {} });
  const failing = (await reply(s, 4)).result.task;
  request(s, 5, 'tasks/result', { taskId: failing.taskId });
  assert.match((await reply(s, 5)).result.content[0].text, /exit code: 3/);
  request(s, 6, 'tasks/get', { taskId: failing.taskId });
  assert.equal((await reply(s, 6)).result.status, 'failed');
  s.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'bash_list', arguments: {}, task: {} } });
  assert.equal((await reply(s, 7)).error.code, -32601, 'only bash_run runs as a task');
  s.close();
  assert.equal(await s.exited, 0);
});

test('legacy: the SDK v1 client runs bash_run as a task', async () => {
  const client = await connect();
  const seen = [];
  for await (const m of client.experimental.tasks.callToolStream(
    { name: 'bash_run', arguments: { command: 'sleep 0.2; echo streamed' } },
    CallToolResultSchema, { task: { ttl: 60000 } })) {
    seen.push(m);
  }
  assert.equal(seen[0].type, 'taskCreated');
  const last = seen.at(-1);
  assert.equal(last.type, 'result');
  assert.equal(last.result.content[0].text, 'streamed\n');
  const { tasks } = await client.experimental.tasks.listTasks();
  assert.equal(tasks[0].status, 'completed');
  await client.closeValidated();
});

async function pollUntil(s, id0, taskId, status) {
  for (let id = id0; id < id0 + 200; id++) {
    request(s, id, 'tasks/get', { taskId, _meta: meta() });
    const r = (await reply(s, id)).result;
    if (r.status === status) return r;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  throw new Error(`task never ${status}`);
}

test('modern: a call that yields becomes a task the client polls', async () => {
  const s = rawServer();
  s.call(1, { command: 'sleep 0.4; echo done', yield_ms: 50 }, { _meta: meta() });
  const created = (await reply(s, 1)).result;
  assert.equal(created.resultType, 'task');
  assert.equal(created.status, 'working');
  const done = await pollUntil(s, 100, created.taskId, 'completed');
  assert.equal(done.result.content[0].text, 'done\n');
  assert.equal(done.result.structuredContent.exit_code, 0);
  // A client without the extension gets the run back instead.
  s.call(2, { command: 'sleep 0.4', yield_ms: 50 }, { _meta: meta({}) });
  const plain = (await reply(s, 2)).result;
  assert.equal(plain.resultType, 'complete');
  assert.equal(plain.structuredContent.state, 'running');
  s.close();
  assert.equal(await s.exited, 0);
});

test('modern: a second call on a run whose first call becomes a task is told so', async () => {
  // bash_output on a run that bash_run still waits on answers bash_run
  // first; bash_run's yield makes it a task, which reads the run from then
  // on: the second call must not wait on it (the run, freed when the task
  // took its end, would be read again by the task).
  const s = rawServer();
  s.call(1, { command: 'sleep 0.5; echo done', yield_ms: 20000 }, { _meta: meta() });
  await new Promise((ok) => setTimeout(ok, 100));
  for (const [id, name, args] of [[2, 'bash_output', { run_id: 'r1', wait_ms: 5000 }],
    [3, 'bash_kill', { run_id: 'r1', signal: 'CONT' }]]) {
    s.send({ jsonrpc: '2.0', id, method: 'tools/call',
      params: { name, arguments: args, _meta: meta() } });
  }
  const created = (await reply(s, 1)).result;
  assert.equal(created.resultType, 'task');
  const second = (await reply(s, 2)).result;
  assert.equal(second.isError, false);
  assert.match(second.content[0].text, /^run r1 became task task-1-[0-9a-f]+: its output comes with the task's result$/);
  const third = (await reply(s, 3)).result;
  assert.match(third.content[0].text, /its output comes with task/);
  const done = await pollUntil(s, 100, created.taskId, 'completed');
  assert.equal(done.result.content[0].text, 'done\n');
  s.close();
  assert.equal(await s.exited, 0);
});

test('modern: tasks/cancel kills the run', async () => {
  const s = rawServer();
  const pidFile = join(dir, 'modern.pid');
  s.call(1, { command: `sleep 60 & echo $! > ${pidFile}; wait`, yield_ms: 50 }, { _meta: meta() });
  const { taskId } = (await reply(s, 1)).result;
  const pid = await waitForNumber(pidFile);
  request(s, 2, 'tasks/cancel', { taskId, _meta: meta() });
  assert.equal((await reply(s, 2)).result.resultType, 'complete');
  assert.ok(await gone(pid), 'the run was killed');
  request(s, 3, 'tasks/get', { taskId, _meta: meta() });
  assert.equal((await reply(s, 3)).result.status, 'cancelled');
  s.close();
  assert.equal(await s.exited, 0);
});

test('modern: a PTY run waiting for input is input_required; tasks/update types the answer', async () => {
  const s = rawServer(['-p']);
  s.call(1, { command: 'read -p "name? " n; echo "hello $n"', yield_ms: 50 }, { _meta: meta() });
  const { taskId } = (await reply(s, 1)).result;
  const waiting = await pollUntil(s, 100, taskId, 'input_required');
  const [key] = Object.keys(waiting.inputRequests);
  assert.equal(waiting.inputRequests[key].method, 'elicitation/create');
  request(s, 2, 'tasks/update', { taskId, _meta: meta(),
    inputResponses: { [key]: { action: 'accept', content: { input: 'bob\n' } } } });
  assert.equal((await reply(s, 2)).result.resultType, 'complete');
  const done = await pollUntil(s, 400, taskId, 'completed');
  assert.match(done.result.content[0].text, /hello bob/);
  s.close();
  assert.equal(await s.exited, 0);
});

test('legacy: a PTY task waiting for input is input_required; bash_write types into its run', async () => {
  const s = legacyServer(['-p']);
  await reply(s, 0);
  s.call(1, { command: 'read -p "name? " n; echo "hello $n"' }, { task: {} });
  const { task } = (await reply(s, 1)).result;
  let waiting;
  for (let id = 100; id < 300 && waiting === undefined; id++) {
    request(s, id, 'tasks/get', { taskId: task.taskId });
    const r = (await reply(s, id)).result;
    if (r.status === 'input_required') waiting = r;
    else await new Promise((ok) => setTimeout(ok, 50));
  }
  const runId = waiting.statusMessage.match(/run (r\d+) waits for input \(line\)/)[1];
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call',
    params: { name: 'bash_write', arguments: { run_id: runId, input: 'ann\n' } } });
  assert.match((await reply(s, 2)).result.content[0].text, /wrote to run/);
  request(s, 3, 'tasks/result', { taskId: task.taskId });
  assert.match((await reply(s, 3)).result.content[0].text, /hello ann/);
  s.close();
  assert.equal(await s.exited, 0);
});
