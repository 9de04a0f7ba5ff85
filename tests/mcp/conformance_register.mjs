// The conformance suite imports `globSync` from 'fs', which Node 22 has
// and Node 20 lacks; its server scenarios never call it. On Node 20 this
// hook gives the suite's modules an 'fs' with a stub of it.
import fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) register('./conformance_hook.mjs', import.meta.url);
