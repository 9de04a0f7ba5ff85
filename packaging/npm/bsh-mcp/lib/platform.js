// Which bsh binary serves this machine. Each platform's binary is its own
// package, listed in optionalDependencies; npm installs the one whose os
// and cpu match (as esbuild and biome do), so nothing is downloaded at
// install time. The binaries are static: a musl system takes the musl
// build when there is one, or the glibc one, which needs no libc at all.
'use strict';
const path = require('path');
const fs = require('fs');

const PACKAGE = require('../package.json').name;

function isMusl() {
  if (process.platform !== 'linux') return false;
  const report = process.report && process.report.getReport();
  const header = report && (typeof report === 'string' ? JSON.parse(report) : report).header;
  return !(header && header.glibcVersionRuntime);
}

// The platform packages to try for this machine, best first.
function candidates() {
  const cpu = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (process.platform !== 'linux' || cpu === undefined) return [];
  const gnu = `${PACKAGE}-linux-${cpu}`;
  const musl = `${PACKAGE}-linux-${cpu}-musl`;
  return isMusl() ? [musl, gnu] : [gnu, musl];
}

// The path of the binary to run, or an Error that says what was looked for.
function binaryPath() {
  if (process.env.BSH_BINARY) return process.env.BSH_BINARY;
  const tried = candidates();
  for (const name of tried) {
    try {
      const file = require.resolve(`${name}/bin/bsh`);
      if (fs.existsSync(file)) return file;
    } catch (_) {
      // not installed: try the next
    }
  }
  const where = `${process.platform}-${process.arch}${isMusl() ? ' (musl)' : ''}`;
  return new Error(
    tried.length === 0
      ? `bsh has no binary for ${where}: it runs on Linux x64 and arm64`
      : `bsh: none of ${tried.join(', ')} is installed for ${where}; ` +
          'reinstall without --no-optional (or --omit=optional), or set BSH_BINARY'
  );
}

module.exports = { binaryPath, candidates, isMusl, dir: path.dirname(__dirname) };
