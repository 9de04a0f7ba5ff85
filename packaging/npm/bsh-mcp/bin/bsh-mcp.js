#!/usr/bin/env node
// bsh-mcp [OPTIONS]: the MCP server on stdio, `bsh mcp OPTIONS`.
'use strict';
require('../lib/launch').launch(['mcp', ...process.argv.slice(2)]);
