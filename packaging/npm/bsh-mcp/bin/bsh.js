#!/usr/bin/env node
// bsh ARGS: the bsh command line itself (bsh run, bsh doctor, ...).
'use strict';
require('../lib/launch').launch(process.argv.slice(2));
