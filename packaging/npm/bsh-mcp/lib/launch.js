// Runs the bsh binary with the given arguments as this process would be:
// the same stdio, signals passed on, and its exit status (or its signal)
// made this process's own.
'use strict';
const { spawn } = require('child_process');
const os = require('os');

// The signals a user or a client sends to end a server; SIGUSR1 is Node's
// own (its inspector), SIGKILL and SIGSTOP cannot be caught.
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'];
const { binaryPath } = require('./platform');

function launch(args) {
  const bin = binaryPath();
  if (bin instanceof Error) {
    process.stderr.write(bin.message + '\n');
    process.exit(127);
  }
  const child = spawn(bin, args, { stdio: 'inherit' });
  const alive = () => child.exitCode === null && child.signalCode === null;
  const forward = (signal) => {
    if (alive()) child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  // However this process ends, bsh does not outlive it (bsh then ends its runs).
  process.on('exit', () => {
    if (alive()) child.kill('SIGKILL');
  });
  child.on('error', (err) => {
    process.stderr.write(`bsh: cannot run ${bin}: ${err.message}\n`);
    process.exit(err.code === 'EACCES' ? 126 : 127);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      for (const s of FORWARDED) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      // A signal Node ignores (SIGPIPE) is still told, as a shell would.
      process.exit(128 + (os.constants.signals[signal] || 0));
    }
    process.exit(code);
  });
}

module.exports = { launch };
