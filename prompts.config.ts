// The repository's own promptlock config: what `npm run demo` syncs from the embedded local
// service (examples/workspace). The outputs under examples/app/ are committed as an example of
// what a team commits: review them like code.
import { defineConfig } from 'promptlock';

export default defineConfig({
  // The demo points this at the local service it starts (PROMPTLOCK_BASE_URL overrides it).
  baseUrl: 'http://127.0.0.1:4010',
  prompts: [
    '@acme/*', //                 every acme prompt, at latest
    '@acme/onboarding:v3', //     pinned: never fetched again once locked
    '@acme/code-review:draft', // the draft (answers version v0)
    '@globex/welcome', //         no selector: the service picks, the lockfile records what it answered
  ],
  snapshots: 'examples/app/prompts',
  lockfile: 'examples/app/prompts.lock.json',
  output: 'examples/app/src/generated/prompts.ts',
  contextFiles: true,
});
