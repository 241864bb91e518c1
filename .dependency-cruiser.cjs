/**
 * The layers of src/ (docs/architecture.md, "Layers"), checked by `npm run lint`:
 *   depcruise src --config .dependency-cruiser.cjs
 * An allow-list: each layer names the layers it may import; an import of anything else in src/
 * breaks the rule `layer-<name>`. Type-only imports count too. test/architecture/rules.test.ts
 * shows each rule failing on a violation.
 * @type {import('dependency-cruiser').IConfiguration}
 */

/** Each layer and the files it is made of. */
const LAYERS = {
  template: '^src/template/',
  types: '^src/types\\.ts$',
  util: '^src/util/',
  root: '^src/(errors|secrets|package-name|limits|prompt-grammar|terminal-text|version)\\.ts$',
  store: '^src/store/',
  config: '^src/config/',
  codegen: '^src/codegen/',
  api: '^src/api/',
  sync: '^src/sync/',
  watch: '^src/watch/',
  workspace: '^src/workspace/',
  history: '^src/history/',
  mcp: '^src/mcp/',
  library: '^src/library\\.ts$',
  init: '^src/init/',
  plugin: '^src/plugin/',
  server: '^src/server/',
  live: '^src/live/',
  integrations: '^src/integrations/',
  index: '^src/index\\.ts$',
  cli: '^src/cli/',
};

/** What each layer may import besides itself, and why it stands where it does. */
const ALLOWED = {
  template: [[], 'the template language is shared by client, server, codegen and live: it imports nothing of ours'],
  types: [['template'], 'the service resource types are shared by everyone'],
  util: [[], 'small helpers, one copy each: nothing of ours'],
  root: [['template', 'types', 'util'], 'errors, key masking, package names, limits, the prompt validator, terminal text'],
  store: [['root', 'util', 'template', 'types'], 'every read and write of lockfile, snapshots, journal and module'],
  config: [['root', 'util', 'store'], 'find, load and validate prompts.config.*; the store for its work folder and conflict markers'],
  codegen: [['root', 'util', 'template', 'types', 'config', 'store'], 'prompts in, module text out (store formats only: rule codegen-does-no-store-io)'],
  api: [['root', 'util', 'types', 'config'], 'the service client'],
  sync: [['root', 'util', 'template', 'types', 'config', 'store', 'codegen'], 'the pipeline; its client is injected, so never api/'],
  watch: [['root', 'util', 'types', 'config', 'store', 'sync'], 'file watching and polling'],
  workspace: [['root', 'util', 'types', 'config', 'api', 'sync'], 'every app of a monorepo over one shared client'],
  history: [['root', 'util', 'sync'], 'the lockfile\'s history in git (promptlock which): git log and cat-file, read only'],
  mcp: [['root', 'util', 'template', 'types', 'config', 'store', 'watch'], 'promptlock mcp: the locked prompts to MCP clients, following the store'],
  library: [
    ['root', 'types', 'config', 'store', 'codegen', 'api', 'sync', 'watch', 'workspace', 'history', 'mcp'],
    'the front door: wires config, client and recovery for the CLI, the plugin and watch',
  ],
  init: [['root', 'util', 'config'], 'the starter config, package scripts, CI files'],
  plugin: [['root', 'sync', 'watch', 'library'], 'the bundler plugin: through the front door'],
  server: [['root', 'util', 'template', 'types', 'store'], 'the local service stands apart: store formats only (rule apart-from-the-store)'],
  live: [['root', 'util', 'template', 'types', 'config', 'store', 'api'], 'runs in applications: none of the build-time machinery'],
  integrations: [[], 'promptlock/messages and promptlock/otel go into apps\' bundles (browsers too): nothing of ours, no Node import'],
  index: [['root', 'types', 'config', 'library', 'server', 'sync'], 'the package root: the public surface only'],
  cli: [
    ['root', 'util', 'config', 'store', 'sync', 'workspace', 'library', 'init', 'server'],
    'the top: through the front door (no client, watcher or code generator of its own), and nothing imports it',
  ],
};

const STORE_FORMATS = '^src/store/(lockfile|snapshot)-format\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Imports form a tree: a cycle means two modules are one concern, or a shared part belongs lower down.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...Object.entries(ALLOWED).map(([name, [allowed, why]]) => ({
      name: `layer-${name}`,
      comment: `${name} (${why}) may import only ${allowed.length ? allowed.join(', ') : 'nothing of ours'}.`,
      severity: 'error',
      from: { path: LAYERS[name] },
      to: { path: '^src/', pathNot: [LAYERS[name], ...allowed.map((other) => LAYERS[other])] },
    })),
    {
      name: 'codegen-does-no-store-io',
      comment:
        'codegen/ is pure: it may use the store formats (lockfile-format, snapshot-format), but every read and write ' +
        'of the store goes through store/ (called by sync/generate.ts).',
      severity: 'error',
      from: { path: LAYERS.codegen },
      to: { path: LAYERS.store, pathNot: STORE_FORMATS },
    },
    {
      name: 'integrations-stand-alone',
      comment:
        'promptlock/messages and promptlock/otel are bundled into apps, browsers and edge runtimes included: no Node built-in ' +
        'and no package (the OpenTelemetry API is loaded at run time, only where Node has it: docs/traces.md).',
      severity: 'error',
      from: { path: LAYERS.integrations },
      to: { dependencyTypesNot: ['local'] },
    },
    {
      name: 'apart-from-the-store',
      comment: 'The local service and promptlock/live share only the store formats with the build-time code.',
      severity: 'error',
      from: { path: `${LAYERS.server}|${LAYERS.live}` },
      to: { path: LAYERS.store, pathNot: STORE_FORMATS },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
