// A call longer than an MCP client's 60-second request timeout (SPEC 6.3):
// with a progress token and resetTimeoutOnProgress the call succeeds,
// because the server reports progress at least every 10 s while the
// command is silent; with the SDK's defaults it returns `running` before
// the client gives up, and bash_output gets the exit later. Both at once,
// so the file takes about 70 s.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from './helpers.mjs';

const client = await connect();
after(() => client.closeValidated());

test('sleep 70: progress keeps the call alive; defaults return running, then the exit', async () => {
  const withProgress = (async () => {
    const seen = [];
    const r = await client.callTool(
      { name: 'bash_run', arguments: { command: 'sleep 70; echo woke', yield_ms: 120000 } },
      undefined,
      { onprogress: (p) => seen.push(p.progress), resetTimeoutOnProgress: true },
    );
    assert.equal(r.structuredContent.state, 'exited');
    assert.equal(r.content[0].text, 'woke\n');
    assert.ok(seen.length >= 7, `${seen.length} progress notifications in 70 s`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1]);
  })();
  const withDefaults = (async () => {
    const t0 = Date.now();
    // A session of its own: it runs beside the first call.
    const r = await client.callTool({ name: 'bash_run', arguments: { command: 'sleep 70; echo late', session: 'beside' } });
    assert.ok(Date.now() - t0 < 60000);
    assert.equal(r.structuredContent.state, 'running');
    const id = r.structuredContent.run_id;
    let end;
    do {
      end = await client.callTool({ name: 'bash_output', arguments: { run_id: id, wait_ms: 30000 } });
    } while (end.structuredContent.state === 'running');
    assert.equal(end.structuredContent.state, 'exited');
    assert.equal(end.structuredContent.exit_code, 0);
    assert.equal(end.content[0].text, 'late\n');
  })();
  await Promise.all([withProgress, withDefaults]);
});
