// Every message the server writes, checked against the official schemas
// of the protocol version in use. No npm package ships the specification's
// schema.json, so the schemas are those the official packages publish:
// the TypeScript SDK v2's spec types (`specTypeSchemas` of
// @modelcontextprotocol/client, both eras) and the Tasks extension's
// generated schemas (@modelcontextprotocol/ext-tasks: core/v1 for the
// 2025-11-25 tasks, core/v2 for the 2026-07-28 extension).
import assert from 'node:assert/strict';
import { specTypeSchemas } from '@modelcontextprotocol/client';
import * as tasksV1 from '@modelcontextprotocol/ext-tasks/core/v1';
import * as tasksV2 from '@modelcontextprotocol/ext-tasks/core/v2';

const spec = (name) => (v) => specTypeSchemas[name]['~standard'].validate(v);
const zod = (schema) => (v) => {
  const r = schema.safeParse(v);
  return r.success ? {} : { issues: r.error.issues };
};

// The result schema of each method, by era.
const LEGACY = {
  initialize: spec('InitializeResult'),
  ping: spec('EmptyResult'),
  'tools/list': spec('ListToolsResult'),
  'tools/call': spec('CallToolResult'),
  'tools/call+task': zod(tasksV1.CreateTaskResultV1Schema),
  'tasks/get': zod(tasksV1.GetTaskResultV1Schema),
  'tasks/list': zod(tasksV1.ListTasksResultV1Schema),
  'tasks/cancel': zod(tasksV1.CancelTaskResultV1Schema),
  'tasks/result': spec('CallToolResult'),
};
const MODERN = {
  'server/discover': spec('DiscoverResult'),
  'tools/list': spec('ListToolsResult'),
  'tools/call': (v) => (v.resultType === 'task' ? zod(tasksV2.CreateTaskResultV2Schema)(v)
    : v.resultType === 'input_required' ? inputRequired(v)
      : zod(tasksV2.CallToolResultV2Schema)(v)),
  'tasks/get': zod(tasksV2.GetTaskResultV2Schema),
  'tasks/update': zod(tasksV2.UpdateTaskResultV2Schema),
  'tasks/cancel': zod(tasksV2.CancelTaskResultV2Schema),
};
// The 2026-07-28 input_required result (no published schema of its own
// here): its questions are elicitation/create requests.
function inputRequired(v) {
  const issues = [];
  if (!v.inputRequests && !v.requestState) issues.push('neither inputRequests nor requestState');
  for (const [key, q] of Object.entries(v.inputRequests ?? {})) {
    const r = spec('ElicitRequest')({ ...q });
    if (r.issues) issues.push({ key, issues: r.issues });
  }
  if (v.requestState !== undefined && typeof v.requestState !== 'string') issues.push('requestState');
  return issues.length ? { issues } : {};
}
// Requests of the server's own, in the legacy era.
const SERVER_REQUESTS = {
  'elicitation/create': spec('ElicitRequest'),
};
const NOTIFICATIONS = {
  'notifications/progress': spec('ProgressNotification'),
  'notifications/cancelled': spec('CancelledNotification'),
  'notifications/tasks/status': zod(tasksV1.TaskStatusNotificationV1Schema),
};

function ok(check, value, what) {
  const r = check(value);
  assert.ok(!r.issues, `${what} does not validate: ${JSON.stringify(r.issues)?.slice(0, 600)}\n${JSON.stringify(value).slice(0, 600)}`);
}

// Follows one connection: what the client asked (id -> method, era) and
// checks each server message when it comes.
export class Validator {
  constructor() { this.asked = new Map(); this.count = 0; this.protocolVersion = undefined; }

  sent(msg) {
    if (typeof msg === 'string') {
      try { msg = JSON.parse(msg); } catch { return; }
    }
    if (msg && msg.id !== undefined && msg.method) {
      const modern = !!msg.params?._meta?.['io.modelcontextprotocol/protocolVersion']
        || msg.method === 'server/discover';
      const task = msg.method === 'tools/call' && !modern && msg.params?.task;
      this.asked.set(msg.id, { method: task ? 'tools/call+task' : msg.method, modern });
    }
  }

  received(msg) {
    this.count++;
    ok(spec('JSONRPCMessage'), msg, 'a message');
    if ('method' in msg && 'id' in msg) {
      const check = SERVER_REQUESTS[msg.method];
      assert.ok(check, `a request of the server the tests do not know: ${msg.method}`);
      ok(check, { method: msg.method, params: msg.params }, msg.method);
      return;
    }
    if ('method' in msg) {
      const check = NOTIFICATIONS[msg.method];
      assert.ok(check, `a notification the tests do not know: ${msg.method}`);
      ok(check, msg, msg.method);
      return;
    }
    if ('error' in msg) {
      ok(spec('JSONRPCErrorResponse'), msg, 'an error reply');
      return;
    }
    const q = this.asked.get(msg.id);
    assert.ok(q, `a reply to a request never sent: ${msg.id}`);
    ok(spec('JSONRPCResultResponse'), msg, 'a result reply');
    if (q.method === 'initialize') this.protocolVersion = msg.result.protocolVersion;
    const check = (q.modern ? MODERN : LEGACY)[q.method];
    assert.ok(check, `no schema for ${q.method} (${q.modern ? 'modern' : 'legacy'})`);
    ok(check, msg.result, `the result of ${q.method}`);
    if (q.modern) {
      const kinds = q.method === 'tools/call' ? ['complete', 'task', 'input_required'] : ['complete', 'task'];
      assert.ok(kinds.includes(msg.result.resultType), `${q.method}: resultType`);
      if (['server/discover', 'tools/list'].includes(q.method)) {
        assert.ok(Number.isInteger(msg.result.ttlMs) && msg.result.ttlMs >= 0, 'ttlMs');
        assert.ok(['public', 'private'].includes(msg.result.cacheScope), 'cacheScope');
      }
    } else {
      assert.equal(msg.result.resultType, undefined, `${q.method}: no resultType in the legacy era`);
    }
  }
}

// Puts a Validator on an SDK transport (before connect): every message
// the client sends and every one the server writes goes through it.
export function validated(transport) {
  const v = new Validator();
  const send = transport.send.bind(transport);
  transport.send = (m, o) => { v.sent(m); return send(m, o); };
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get() { return handler; },
    set(fn) {
      handler = fn && ((m, extra) => {
        try { v.received(m); } catch (e) { v.failure ??= e; }
        fn(m, extra);
      });
    },
  });
  transport.validator = v;
  return v;
}
