// A module-resolve hook (registered by conformance_register.mjs on Node 20
// only): the conformance suite's import of 'fs' gets node:fs plus a
// globSync that says it needs Node 22.
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs')
    && /\/(@modelcontextprotocol\/conformance|conformance-next)\//.test(context.parentURL ?? ''))
    return { url: 'bsh-stub:fs', shortCircuit: true };
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url === 'bsh-stub:fs')
    return {
      format: 'module',
      shortCircuit: true,
      source: "import fs from 'node:fs'; export * from 'node:fs'; export default fs;\n"
        + "export function globSync() { throw new Error('fs.globSync needs Node 22'); }\n",
    };
  return next(url, context);
}
