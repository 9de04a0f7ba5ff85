// Runs that outlive a call (SPEC 6.3), through the official SDK client:
// a dev server started, polled, queried with curl from a second call and
// killed; a password prompt in PTY mode; 20 runs at once; runs killed at
// the server's end.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { connect, gone, rawServer, waitForNumber, scratchDir } from './helpers.mjs';

const client = await connect();
const pty = await connect(['-p']);
// After tools/list the SDK checks every structuredContent against the
// tool's outputSchema.
await client.listTools();
await pty.listTools();
after(async () => { await client.closeValidated(); await pty.closeValidated(); });

const call = (c, name, args, options) => c.callTool({ name, arguments: args }, undefined, options);
const dir = scratchDir('bsh-runs');

// Reads a run until it has ended (a loaded machine may need more than one
// wait); returns the last reply and all the stdout read.
async function untilExited(c, id, first) {
  let r = first, out = first.structuredContent.stdout;
  for (let i = 0; i < 20 && r.structuredContent.state !== 'exited'; i++) {
    r = await call(c, 'bash_output', { run_id: id, wait_ms: 5000 });
    out += r.structuredContent.stdout;
  }
  return { r, out };
}

const SERVER = `exec python3 -c '
import http.server, socketserver
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"hello from the dev server\\n")
    def log_message(self, *a): print("served", self.path, flush=True)
s = socketserver.TCPServer(("127.0.0.1", 0), H)
print("listening on", s.server_address[1], flush=True)
s.serve_forever()'`;

test('a dev server: started, polled, queried from a second call, killed', async () => {
  const started = await call(client, 'bash_run', { command: SERVER, yield_ms: 1500 });
  assert.equal(started.isError, false);
  assert.equal(started.structuredContent.state, 'running');
  const id = started.structuredContent.run_id;
  assert.match(started.content[0].text, new RegExp(`^still running as run ${id}\\n`));
  let text = started.structuredContent.stdout;
  for (let i = 0; i < 20 && !/listening on \d+/.test(text); i++) {
    const polled = await call(client, 'bash_output', { run_id: id, wait_ms: 250 });
    text += polled.structuredContent.stdout;
  }
  const port = Number(/listening on (\d+)/.exec(text)[1]);
  const list = await call(client, 'bash_list', {});
  const mine = list.structuredContent.runs.find((r) => r.run_id === id);
  assert.equal(mine.state, 'running');
  assert.deepEqual(mine.ports, [port]);
  const got = await call(client, 'bash_run', { command: `curl -s http://127.0.0.1:${port}/x` });
  assert.equal(got.content[0].text, 'hello from the dev server\n');
  const polled = await call(client, 'bash_output', { run_id: id, wait_ms: 2000 });
  assert.match(polled.structuredContent.stdout, /served \/x/);
  const { r: killed } = await untilExited(client, id, await call(client, 'bash_kill', { run_id: id }));
  assert.equal(killed.structuredContent.signal, 9);
  assert.equal(killed.isError, true);
  const again = await call(client, 'bash_output', { run_id: id });
  assert.equal(again.isError, true);
  assert.match(again.content[0].text, /no run/);
});

test('PTY: a password prompt returns awaiting_input within a second, then bash_write', async () => {
  const t0 = Date.now();
  const r = await call(pty, 'bash_run', { command: "read -s -p 'Password: ' pw; echo; echo \"got ${#pw} chars\"" });
  const ms = Date.now() - t0;
  assert.equal(r.structuredContent.state, 'awaiting_input');
  assert.equal(r.structuredContent.input_kind, 'password');
  assert.ok(ms < 1000, `reported after ${ms} ms`);
  console.log(`# prompt to awaiting_input: ${ms} ms (call start to reply)`);
  assert.match(r.content[0].text,
    /^waiting for input \(password\) as run r\d+\n(?:\[bsh: run r\d+ goes on detached from session [^\n]*\n)?Password: /);
  const first = await call(pty, 'bash_write', { run_id: r.structuredContent.run_id, input: 'hunter2\n', wait_ms: 10000 });
  const { r: w, out } = await untilExited(pty, r.structuredContent.run_id, first);
  assert.equal(w.structuredContent.exit_code, 0);
  assert.match(out, /got 7 chars/);
  assert.doesNotMatch(out, /hunter2/);
});

test('PTY: a line prompt, a raw-mode reader, and no false alarm for a silent sleep', async () => {
  const line = await call(pty, 'bash_run', { command: "read -p 'Continue? [y/N] ' a; echo \"answer $a\"" });
  assert.equal(line.structuredContent.input_kind, 'line');
  const done = await untilExited(pty, line.structuredContent.run_id,
    await call(pty, 'bash_write', { run_id: line.structuredContent.run_id, input: 'y\n', wait_ms: 10000 }));
  assert.match(done.out, /answer y/);
  const raw = await call(pty, 'bash_run', { command: 'stty raw -echo; head -c1 >/dev/null; echo pressed' });
  assert.equal(raw.structuredContent.input_kind, 'raw');
  const pressed = await untilExited(pty, raw.structuredContent.run_id,
    await call(pty, 'bash_write', { run_id: raw.structuredContent.run_id, input: 'q', wait_ms: 10000 }));
  assert.match(pressed.out, /pressed/);
  const quiet = await call(pty, 'bash_run', { command: 'sleep 1.5; echo slept' });
  assert.equal(quiet.structuredContent.state, 'exited');
  assert.match(quiet.content[0].text, /slept/);
});

test('pipe mode: input, stdin kept open for bash_write, close_stdin', async () => {
  const r = await call(client, 'bash_run', { command: 'tr a-z A-Z', input: 'abc\n' });
  assert.equal(r.content[0].text, 'ABC\n');
  const s = await call(client, 'bash_run', { command: 'while read l; do echo "got $l"; done; echo eof', stdin: true, yield_ms: 200 });
  const id = s.structuredContent.run_id;
  const w1 = await call(client, 'bash_write', { run_id: id, input: 'one\n', wait_ms: 300 });
  assert.match(w1.content[0].text, new RegExp(`^still running as run ${id}\n`));
  let seen = w1.structuredContent.stdout;
  for (let i = 0; i < 100 && !seen.includes('got one'); i++) {
    seen += (await call(client, 'bash_output', { run_id: id, wait_ms: 200 })).structuredContent.stdout;
  }
  assert.equal(seen, 'got one\n');
  const w2 = await untilExited(client, id,
    await call(client, 'bash_write', { run_id: id, input: 'two\n', close_stdin: true, wait_ms: 10000 }));
  assert.equal(w2.out, 'got two\neof\n');
  const none = await call(client, 'bash_run', { command: 'sleep 5', yield_ms: 0 });
  const err = await call(client, 'bash_write', { run_id: none.structuredContent.run_id, input: 'x' });
  assert.equal(err.isError, true);
  assert.match(err.content[0].text, /has no stdin/);
  const k = await untilExited(client, none.structuredContent.run_id,
    await call(client, 'bash_kill', { run_id: none.structuredContent.run_id, signal: 'TERM' }));
  assert.equal(k.r.structuredContent.signal, 15);
});

test('20 runs in flight at once stay independent', async () => {
  const starts = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    call(client, 'bash_run', { command: `echo start-${i}; sleep 1; echo end-${i}`, yield_ms: 100, session: `s${i}` })));
  const ids = starts.map((r) => r.structuredContent.run_id);
  assert.equal(new Set(ids).size, 20);
  const ends = await Promise.all(ids.map((id) => call(client, 'bash_output', { run_id: id, wait_ms: 10000 })));
  ends.forEach((r, i) => {
    assert.equal(r.structuredContent.state, 'exited');
    assert.equal(starts[i].structuredContent.stdout + r.structuredContent.stdout, `start-${i}\nend-${i}\n`);
  });
});

test('every run held is killed at end of input and on SIGTERM', async () => {
  for (const how of ['eof', 'SIGTERM']) {
    const s = rawServer();
    const pidfile = join(dir, `pid-${how}`);
    s.call(1, { command: `sleep 300 & echo $! > ${pidfile}; wait`, yield_ms: 0 });
    const r = await s.next();
    assert.equal(r.result.structuredContent.state, 'running');
    const pid = await waitForNumber(pidfile);
    if (how === 'eof') s.close(); else s.child.kill('SIGTERM');
    assert.equal(await s.exited, how === 'eof' ? 0 : 143);
    assert.ok(await gone(pid), `the run's sleep is gone after ${how}`);
  }
});

test('max-runs: a run beyond it is a tool error', async () => {
  const s = rawServer(['--max-runs', '1']);
  s.call(1, { command: 'sleep 5', yield_ms: 0 });
  assert.equal((await s.next()).result.structuredContent.state, 'running');
  s.call(2, { command: 'true' });
  const r = await s.next();
  assert.equal(r.result.isError, true);
  assert.match(r.result.content[0].text, /too many runs held \(at most 1 at once\)/);
  s.close();
  await s.exited;
});
