// Runs the bsh binary with the given arguments as this process would be:
// the same stdio, signals passed on, and its exit status (or its signal)
// made this process's own.
'use strict';
const { spawn } = require('child_process');
const os = require('os');
const { binaryPath } = require('./platform');

function launch(args) {
  const bin = binaryPath();
  if (bin instanceof Error) {
    process.stderr.write(bin.message + '\n');
    process.exit(127);
  }
  const child = spawn(bin, args, { stdio: 'inherit' });
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  child.on('error', (err) => {
    process.stderr.write(`bsh: cannot run ${bin}: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      // A signal Node ignores (SIGPIPE) is still told, as a shell would.
      process.exit(128 + (os.constants.signals[signal] || 0));
    }
    process.exit(code);
  });
}

module.exports = { launch };
