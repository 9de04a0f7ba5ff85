// `bsh mcp --sandbox`: every call is confined, with a private TMPDIR of
// its own that goes with it, and a call reaches a Unix socket that an
// earlier call of the same server bound (a server it left running), but
// not one from outside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { rawServer, scratchDir } from './helpers.mjs';

const dir = scratchDir('bsh-sandbox');

async function reply(s, id, ms = 20000) {
  for (;;) {
    const m = await s.next(ms);
    if (m.id === id) return m;
  }
}

const text = (m) => m.result.content.map((c) => c.text ?? '').join('');

test('each call has a TMPDIR of its own, removed when the call is over', async () => {
  const s = rawServer(['--sandbox', '-C', dir]);
  s.call(1, { command: 'echo "tmp=$TMPDIR"; stat -c %a "$TMPDIR"; touch "$TMPDIR/left"' });
  const first = text(await reply(s, 1));
  s.call(2, { command: 'echo "tmp=$TMPDIR"' });
  const second = text(await reply(s, 2));
  s.close();
  await s.exited;
  const a = /tmp=(\S+)/.exec(first)[1];
  const b = /tmp=(\S+)/.exec(second)[1];
  assert.match(a, /\/bsh-run-/);
  assert.match(first, /\n700\n/);
  assert.notEqual(a, b);
  assert.ok(!existsSync(a) && !existsSync(b), 'both removed');
});

test('a call reaches the socket an earlier call bound, not one from outside', async () => {
  const outside = join(dir, 'outside.sock');
  const listener = createServer((c) => c.end('outside-answered\n'));
  await new Promise((r) => listener.listen(outside, r));
  const s = rawServer(['--sandbox', '-C', dir]);
  const serve = "import socket\n"
    + "s = socket.socket(socket.AF_UNIX); s.bind('srv.sock'); s.listen(1)\n"
    + "print('ready', flush=True)\n"
    + "c, _ = s.accept(); c.sendall(b'served'); c.close()";
  s.call(1, { command: `python3 -c "${serve}"; rm -f srv.sock`, yield_ms: 1500 });
  const started = await reply(s, 1);
  assert.match(text(started), /ready/);
  const connect = (path) => 'python3 -c "import socket; s = socket.socket(socket.AF_UNIX); '
    + `s.connect('${path}'); print(s.recv(20).decode())"`;
  s.call(2, { command: connect('srv.sock') });
  assert.match(text(await reply(s, 2)), /served/);
  s.call(3, { command: connect(outside) });
  const refused = text(await reply(s, 3));
  assert.match(refused, /Permission denied/);
  assert.doesNotMatch(refused, /outside-answered/);
  s.close();
  await s.exited;
  listener.close();
});
