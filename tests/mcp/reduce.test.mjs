// Output shaped for models (SPEC 10): progress frames, colour, controls and
// repeated lines reduced in pipe and PTY mode, the line that says what was
// left out and names the log (which keeps every byte), structuredContent's
// `reduced`, `max_output` on bash_run, bash_output and bash_write, and
// --raw-output for the old behaviour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { rawServer } from './helpers.mjs';

const LINE = /\n\[bsh: (.+) left out; the log (\/\S+) has every byte\]$/;

async function run(args, serverArgs = []) {
  const s = rawServer(['--no-sessions', ...serverArgs]);
  s.call(1, args);
  const r = await s.next(20000);
  s.close();
  await s.exited;
  return r;
}

test('progress frames and colour become what a terminal shows; the log keeps every byte', async () => {
  const cmd = "printf '0%%\\r50%%\\r100%%\\n\\033[1;31mred\\033[0m\\n'";
  const s = rawServer(['--no-sessions']);
  s.call(1, { command: cmd, max_output: 1000 });
  const r = (await s.next(20000)).result;
  const text = r.content[0].text;
  assert.ok(text.startsWith('100%\nred\n'), text);
  const m = text.match(LINE);
  assert.ok(m, text);
  assert.equal(m[1], '2 progress frames and 2 escape sequences');
  assert.deepEqual(r.structuredContent.reduced, {
    progress_frames: 2, escape_sequences: 2, repeated_lines: 0,
    control_characters: 0, invalid_utf8: 0,
  });
  assert.equal(r.structuredContent.stdout, '100%\nred\n', 'structuredContent carries the reduced text');
  assert.equal(readFileSync(m[2], 'latin1'), '0%\r50%\r100%\n\x1b[1;31mred\x1b[0m\n', 'the log is raw');
  s.close();
  await s.exited;
});

test('three or more identical lines fold; two stay', async () => {
  const r = (await run({ command: 'for i in 1 2 3 4 5; do echo same; done; echo a; echo a; echo end' })).result;
  const text = r.content[0].text;
  assert.ok(text.startsWith('same\n[... repeated 4 more times]\na\na\nend\n'), text);
  assert.equal(r.structuredContent.reduced.repeated_lines, 4);
});

test('nothing reduced: no line, no counts', async () => {
  const r = (await run({ command: 'echo plain; echo text >&2' })).result;
  assert.equal(r.content[0].text, 'plain\ntext\n');
  assert.equal(r.structuredContent.reduced, undefined);
});

test('PTY mode reduces the same way', async () => {
  const r = (await run({ command: "for i in 1 2 3; do printf '\\r\\033[Kstep %d' $i; done; echo; echo done" }, ['-p'])).result;
  const text = r.content[0].text;
  assert.ok(text.startsWith('step 3\ndone\n'), JSON.stringify(text));
  assert.ok(r.structuredContent.reduced.progress_frames >= 2);
});

test('controls and invalid UTF-8: removed and replaced, counted', async () => {
  const r = (await run({ command: "printf 'a\\001b\\377c\\n'" })).result;
  assert.ok(r.content[0].text.startsWith('ab\ufffdc\n'));
  assert.equal(r.structuredContent.reduced.control_characters, 1);
  assert.equal(r.structuredContent.reduced.invalid_utf8, 1);
});

test('max_output bounds the whole text, from 200 up, cut between characters', async () => {
  for (const max of [200, 333, 1000]) {
    for (const cmd of ['seq 1 100000', "printf 'é%.0s' $(seq 30000)", 'yes | head -c 2000000',
      'head -c 200000 /dev/urandom', 'seq 1 5000 >&2; seq 1 50000; exit 3']) {
      const r = (await run({ command: cmd, max_output: max })).result;
      const text = r.content[0].text;
      assert.ok([...text].length <= max, `${cmd} with ${max}: ${[...text].length} characters`);
      if (cmd.startsWith('printf')) assert.ok(!text.includes('\ufffd'), 'no character split');
    }
  }
  const r = (await run({ command: 'seq 1 100000', max_output: 500 })).result;
  const text = r.content[0].text;
  assert.match(text, /^1\n2\n/);
  assert.match(text, /\[\.\.\. \d+ bytes omitted; the whole output is in \/\S+ \.\.\.\]/);
  assert.match(text, /99999\n100000\n$/);
  assert.ok(r.structuredContent.truncated_bytes > 500000);
});

test('max_output out of range or not an integer is a tool error', async () => {
  for (const bad of [199, 1000001, '300', 2.5, -1]) {
    const r = (await run({ command: 'echo hi', max_output: bad })).result;
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /max_output must be an integer from 200 to 1000000/);
  }
});

test('bash_output and bash_write take max_output', async () => {
  const s = rawServer(['--no-sessions']);
  s.call(1, { command: 'seq 1 20000; read x; seq 1 20000; sleep 0.2', yield_ms: 300, stdin: true });
  const first = (await s.next(10000)).result;
  const id = first.structuredContent.run_id;
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash_write', arguments: { run_id: id, input: 'go\n', max_output: 250, wait_ms: 100 } } });
  const w = (await s.next(10000)).result;
  assert.ok([...w.content[0].text].length <= 250, w.content[0].text);
  s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'bash_output', arguments: { run_id: id, max_output: 300, wait_ms: 5000 } } });
  const o = (await s.next(10000)).result;
  assert.ok([...o.content[0].text].length <= 300, o.content[0].text);
  assert.equal(o.structuredContent.state, 'exited');
  s.close();
  await s.exited;
});

test('--raw-output shows the bytes as they came (made valid UTF-8)', async () => {
  const r = (await run({ command: "printf '0%%\\r100%%\\n\\033[31mred\\033[0m\\n'; for i in 1 2 3; do echo x; done" }, ['--raw-output'])).result;
  assert.equal(r.content[0].text, '0%\r100%\n\x1b[31mred\x1b[0m\nx\nx\nx\n');
  assert.equal(r.structuredContent.reduced, undefined);
});

test('a 30 MB line without a newline: the reply stays valid and bounded', async () => {
  const r = (await run({ command: 'head -c 30000000 /dev/zero | tr "\\0" a', max_output: 2000 })).result;
  const text = r.content[0].text;
  assert.ok([...text].length <= 2000);
  assert.match(text, /bytes omitted/);
});

test('bash_output pages through the log, also after the run was dropped; slices join exactly', async () => {
  const s = rawServer(['--no-sessions']);
  s.call(1, { command: "for i in $(seq 1 3000); do printf 'é%d\\n' $i; done", max_output: 300 });
  const first = (await s.next(10000)).result;
  const id = first.structuredContent.run_id;
  assert.match(first.content[0].text, /bytes omitted/);
  let offset = 1; // inside the first character: its continuation byte is skipped
  let joined = '';
  let size = 0;
  for (let i = 2; i < 200; i++) {
    s.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'bash_output', arguments: { run_id: id, offset, length: 5000, max_output: 400 } } });
    const r = (await s.next(10000)).result;
    assert.equal(r.isError, false);
    const sc = r.structuredContent;
    size = sc.log_bytes;
    assert.equal(sc.offset, offset);
    assert.ok([...r.content[0].text].length <= 400);
    assert.equal(sc.stderr, '');
    joined += sc.stdout;
    if (sc.length === 0) break;
    offset += sc.length;
  }
  assert.equal(offset, size, 'the pages reach the end');
  const want = Array.from({ length: 3000 }, (_, k) => `é${k + 1}\n`).join('').slice(1);
  assert.equal(joined, want, 'every character exactly once');
  s.send({ jsonrpc: '2.0', id: 500, method: 'tools/call', params: { name: 'bash_output', arguments: { run_id: id, offset: size + 10 } } });
  const past = (await s.next(10000)).result;
  assert.equal(past.isError, false);
  assert.equal(past.structuredContent.stdout, '');
  assert.equal(past.structuredContent.log_bytes, size);
  s.send({ jsonrpc: '2.0', id: 501, method: 'tools/call', params: { name: 'bash_output', arguments: { run_id: id, offset: -1 } } });
  const neg = (await s.next(10000)).result;
  assert.equal(neg.isError, true);
  s.close();
  await s.exited;
});

test('a page is reduced as if the log began at its offset', async () => {
  const s = rawServer(['--no-sessions']);
  s.call(1, { command: "printf 'a\\rb\\n\\033[31mred\\033[0m\\n'; sleep 1", yield_ms: 300 });
  const id = (await s.next(10000)).result.structuredContent.run_id;
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash_output', arguments: { run_id: id, offset: 0 } } });
  const r = (await s.next(10000)).result;
  assert.equal(r.structuredContent.stdout, 'b\nred\n');
  assert.match(r.content[0].text, /\n\[bsh: .* left out; the log \/\S+ has every byte\]$/);
  assert.equal(r.structuredContent.reduced.escape_sequences, 2);
  s.close();
  await s.exited;
});

test('a 10 MB OSC in a cut output: neither head nor tail shows the string; the line after it is shown', async () => {
  const r = (await run({ command: 'echo before; printf "\\033]"; head -c 10000000 /dev/zero | tr "\\0" x; printf "\\a"; echo after', max_output: 400 })).result;
  const text = r.content[0].text;
  assert.ok(!text.includes('xxx'), text.slice(0, 300));
  assert.match(text, /^before\n\[\.\.\. \d+ bytes omitted; the whole output is in \/\S+ \.\.\.\]\nafter\n\[bsh: /);
});
