// promptlock config: which prompts to lock, and where the lockfile, snapshots and generated
// module go. Every option is optional; the commented-out values are the defaults.
// The API key is never written here: set PROMPTLOCK_API_KEY in the environment instead.
import { defineConfig } from 'promptlock';

export default defineConfig({
  // Address of the prompt service. The environment variable PROMPTLOCK_BASE_URL overrides it.
  // baseUrl: 'https://api.baytos.ai',

  // Which prompts to lock: exact names, names with a selector (:v3 pins a version, :latest
  // and :draft float) and workspace globs. `promptlock add <name>` and `promptlock remove <name>`
  // edit this list. An empty list locks every prompt the service lists, at latest.
  prompts: [
    // '@acme/*',
    // '@acme/onboarding:v3',
    // '@acme/experiment:draft',
  ],

  // Workspace of list items the service names by a bare slug. Only needed when it does.
  // workspace: 'acme',

  // Folder of JSON snapshots, relative to this file. Commit it.
  // snapshots: 'prompts',

  // The lockfile, relative to this file. Commit it.
  // lockfile: 'prompts.lock.json',

  // The generated module, relative to this file. `promptlock generate` rebuilds it. A .js or
  // .mjs path writes JavaScript with its types beside it (.d.ts / .d.mts).
  // output: 'src/generated/prompts.ts',

  // Fields left out of every generated prompt, e.g. for a module bundled into a browser app:
  // any text that reaches a browser is public.
  // omit: ['systemPrompt', 'critiquePrompt', 'context', 'metadata'],

  // Requests in flight at once.
  // concurrency: 16,

  // Seconds between polls of the service in watch mode.
  // watchInterval: 30,

  // Download each file attached to a prompt next to its snapshot (URL items are only recorded).
  // contextFiles: false,

  // Timeout of one request, in milliseconds.
  // timeout: 30000,

  // Hard limits on what the service and the committed files may send (promptlock's README,
  // section Security, lists each one with its default); a service can never raise them.
  // limits: { promptBytes: 1000000, placeholders: 2000, jsonDepth: 64, listPages: 1000 },
});
