// Sessions (SPEC 9) through the official SDK client: the shell's state
// carried from call to call, named sessions apart, a call's own cwd and
// env, a held run that leaves its session, calls that wait their turn,
// the tool bash_session, bash_list's sessions, --no-sessions and
// --max-sessions.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, scratchDir } from './helpers.mjs';

const dir = scratchDir('bsh-sessions');
const client = await connect(['-C', dir]);
await client.listTools(); // the SDK checks every result against its schema
after(async () => { await client.closeValidated(); });
const call = (c, name, args) => c.callTool({ name, arguments: args });
const run = (args) => call(client, 'bash_run', args);
const text = (r) => r.content[0].text;

test('what one call does to its shell holds for the next', async () => {
  const first = await run({ command: `mkdir -p ${dir}/src && cd ${dir}/src && export V=$'a\\nb"c$d' && f() { echo "fn $1"; } && alias al='echo aliased' && shopt -s extglob` });
  assert.equal(first.structuredContent.session, 'default');
  assert.equal(first.structuredContent.session_state, 'saved');
  assert.equal(first.structuredContent.cwd, `${dir}/src`);
  const next = await run({ command: 'pwd; printf "%s\\n" "$V"; f x; al; case ab in @(a)b) echo extglob;; esac' });
  assert.equal(next.structuredContent.stdout, `${dir}/src\na\nb"c$d\nfn x\naliased\nextglob\n`);
  const named = await run({ command: 'pwd; echo "${V-unset}"', session: 'default' });
  assert.equal(named.structuredContent.stdout, `${dir}/src\na\nb"c$d\n`, '"default" names the same session');
});

test('named sessions are apart', async () => {
  const other = await run({ command: 'pwd; echo "${V-unset}"; export W=other', session: 'other' });
  assert.equal(other.structuredContent.stdout, `${dir}\nunset\n`);
  assert.equal(other.structuredContent.session, 'other');
  const back = await run({ command: 'echo "${W-unset}"' });
  assert.equal(back.structuredContent.stdout, 'unset\n');
});

test("a call's cwd and env are its own", async () => {
  const r = await run({ command: 'pwd; echo "$ONLY"', cwd: '/', env: { ONLY: 'this call' } });
  assert.equal(r.structuredContent.stdout, '/\nthis call\n');
  const after1 = await run({ command: 'pwd; echo "${ONLY-unset}"' });
  assert.equal(after1.structuredContent.stdout, `${dir}/src\nunset\n`);
  for (const [args, re] of [
    [{ env: { '1X': 'a' } }, /env: '1X' is not a valid variable name/],
    [{ env: { X: 1 } }, /env: the value of X must be a string/],
    [{ env: 'X=1' }, /env must be an object/],
    [{ session: '' }, /session must be a string of 1 to 128 bytes/],
    [{ session: 'x'.repeat(129) }, /session must be a string of 1 to 128 bytes/],
    [{ session: 7 }, /needs arguments.session, a string/],
    [{ cwd: '' }, /cwd must be a string/],
  ]) {
    const bad = await run({ command: 'true', ...args });
    assert.equal(bad.isError, true);
    assert.match(text(bad), re);
  }
});

test("a call whose cwd cannot be used: the structured error is the error's words alone", async () => {
  const bad = await run({ command: 'true', cwd: `${dir}/no/such/dir` });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /session state not saved/);
  assert.equal(bad.structuredContent.error,
    `failed to spawn bash process: cannot use working directory '${dir}/no/such/dir': No such file or directory`);
});

test('a run left running leaves its session; its end saves nothing', async () => {
  const held = await run({ command: 'sleep 0.5; export HELD=1', yield_ms: 100 });
  assert.equal(held.structuredContent.state, 'running');
  assert.equal(held.structuredContent.session_state, 'detached');
  assert.match(text(held), /\[bsh: run r\d+ goes on detached from session 'default': what it changes in the shell's state will not be kept\]/);
  const free = await run({ command: 'echo free' });
  assert.equal(free.structuredContent.stdout, 'free\n', 'the session is free at once');
  const end = await call(client, 'bash_output', { run_id: held.structuredContent.run_id, wait_ms: 5000 });
  assert.equal(end.structuredContent.session_state, 'detached');
  const later = await run({ command: 'echo "${HELD-unset}"' });
  assert.equal(later.structuredContent.stdout, 'unset\n');
});

test('calls for one session run one after the other, in order', async () => {
  const [a, b, c] = await Promise.all([
    run({ command: 'sleep 0.4; ORDER=a; echo a' }),
    run({ command: 'ORDER="$ORDER b"; echo "$ORDER"' }),
    run({ command: 'echo "$ORDER c"' }),
  ]);
  assert.equal(a.structuredContent.stdout, 'a\n');
  assert.equal(b.structuredContent.stdout, 'a b\n');
  assert.equal(c.structuredContent.stdout, 'a b c\n');
});

test('a call that cannot start within its timeout_ms is told the session is busy', async () => {
  const long = run({ command: 'sleep 2', session: 'busy' });
  await new Promise((res) => setTimeout(res, 200));
  const r = await run({ command: 'true', session: 'busy', timeout_ms: 300 });
  assert.equal(r.isError, true);
  assert.match(text(r), /the session 'busy' is busy: run r\d+ is still attached/);
  assert.equal((await long).structuredContent.exit_code, 0);
});

test('a timeout keeps the earlier state and says why', async () => {
  const r = await run({ command: 'export LOST=1; sleep 5', timeout_ms: 300 });
  assert.equal(r.structuredContent.session_state, 'unchanged');
  assert.match(text(r), /\[bsh: session state not saved: killed by SIGKILL at the timeout; the session keeps the state it had before this run\]/);
  const next = await run({ command: 'echo "${LOST-unset}"' });
  assert.equal(next.structuredContent.stdout, 'unset\n');
});

test('bash_session shows and resets; bash_list lists the sessions', async () => {
  const shown = await call(client, 'bash_session', { action: 'show' });
  assert.equal(shown.structuredContent.cwd, `${dir}/src`);
  assert.ok(shown.structuredContent.functions.includes('f'));
  assert.ok(shown.structuredContent.aliases.includes('al'));
  assert.ok(shown.structuredContent.variables.includes('V'));
  const list = await call(client, 'bash_list', {});
  const names = list.structuredContent.sessions.map((s) => s.session).sort();
  assert.deepEqual(names, ['busy', 'default', 'other']);
  const reset = await call(client, 'bash_session', { action: 'reset' });
  assert.equal(reset.structuredContent.cwd, dir);
  const fresh = await run({ command: 'pwd; echo "${V-unset}"' });
  assert.equal(fresh.structuredContent.stdout, `${dir}\nunset\n`);
  const unknown = await call(client, 'bash_session', { action: 'show', session: 'nope' });
  assert.equal(unknown.isError, true);
  const badAction = await call(client, 'bash_session', { action: 'drop' });
  assert.equal(badAction.isError, true);
});

test('--no-sessions: every call a fresh shell; --max-sessions bounds them', async () => {
  const plain = await connect(['--no-sessions']);
  try {
    await plain.listTools();
    await call(plain, 'bash_run', { command: 'cd /; export N=1' });
    const r = await call(plain, 'bash_run', { command: 'echo "${N-unset}"' });
    assert.equal(r.structuredContent.stdout, 'unset\n');
    assert.equal(r.structuredContent.session, null);
    assert.equal(r.structuredContent.session_state, null);
  } finally { await plain.closeValidated(); }
  const one = await connect(['--max-sessions', '1']);
  try {
    await one.listTools();
    assert.equal((await call(one, 'bash_run', { command: 'true' })).isError, false);
    const r = await call(one, 'bash_run', { command: 'true', session: 'second' });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /too many sessions \(at most 1\)/);
  } finally { await one.closeValidated(); }
});

test('a call that waits for its session hears progress, and a cancel drops it', async () => {
  const long = run({ command: 'sleep 6', session: 'slow' });
  await new Promise((res) => setTimeout(res, 200));
  const seen = [];
  const waiting = client.callTool({ name: 'bash_run', arguments: { command: 'echo after', session: 'slow' } },
    undefined, { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true });
  const abort = new AbortController();
  const dropped = client.callTool({ name: 'bash_run', arguments: { command: 'export CANCELLED=1', session: 'slow' } },
    undefined, { signal: abort.signal });
  await new Promise((res) => setTimeout(res, 300));
  abort.abort();
  await assert.rejects(dropped);
  assert.equal((await long).structuredContent.exit_code, 0);
  assert.equal((await waiting).structuredContent.stdout, 'after\n');
  assert.ok(seen.length >= 1, `${seen.length} progress notifications`);
  assert.match(seen[0].message, /^waiting for session 'slow': run r\d+ is still attached$/);
  const check = await run({ command: 'echo "${CANCELLED-unset}"', session: 'slow' });
  assert.equal(check.structuredContent.stdout, 'unset\n', 'the cancelled call never ran');
});
