/**
 * The layer rules of src/ (docs/architecture.md), checked by `npm run lint`:
 *   depcruise src --config .dependency-cruiser.cjs
 * Every rule is "from these files, no import of those"; type-only imports count too.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Imports form a tree: a cycle means two modules are one concern, or a shared part belongs lower down.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'nothing-imports-cli',
      comment: 'cli/ is the top: argument parsing, printing, exit codes. The library (src/index.ts) never depends on it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'template-and-types-are-leaves',
      comment:
        'The template language and the service resource types are shared by client, server, codegen and live: they import nothing of ours.',
      severity: 'error',
      from: { path: '^src/(template/|types\\.ts$)' },
      to: { path: '^src/', pathNot: '^src/template/' },
    },
    {
      name: 'server-stands-alone',
      comment:
        'The local service shares only types, template and the store formats with the client: no client, sync, codegen or watch code.',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/(sync|api|codegen|watch|cli)/' },
    },
    {
      name: 'sync-gets-its-client-injected',
      comment: 'sync/ talks to the service through the client it is given (api/ is wired in by library.ts).',
      severity: 'error',
      from: { path: '^src/sync/' },
      to: { path: '^src/(api|watch|cli)/' },
    },
    {
      name: 'live-runtime-stays-small',
      comment: 'promptlock/live runs in applications: none of the build-time machinery.',
      severity: 'error',
      from: { path: '^src/live/' },
      to: { path: '^src/(cli|sync|codegen|server|watch|plugin)/' },
    },
    {
      name: 'codegen-emits-only',
      comment: 'codegen/ turns prompts into module text; it never fetches, syncs or watches.',
      severity: 'error',
      from: { path: '^src/codegen/' },
      to: { path: '^src/(sync|api|cli|watch)/' },
    },
    {
      name: 'codegen-does-no-store-io',
      comment:
        'codegen/ is pure: it may use the store formats (lockfile-format, snapshot-format), but every read and write ' +
        'of the store goes through store/ (called by sync/generate.ts).',
      severity: 'error',
      from: { path: '^src/codegen/' },
      to: { path: '^src/store/', pathNot: '^src/store/(lockfile|snapshot)-format\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
