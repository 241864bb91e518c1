/** What the security test files share: a valid prompt as a service answers it, and the CLI with a key. */
import type { Prompt } from '../../src/types.js';
import { runBuiltCli } from './cli.js';

/** Not a real key: what the hostile service may echo. */
export const KEY = 'sk_live_SecurityTestKey00000000000wxyz';

export function validPrompt(name: string, fields: Partial<Prompt> = {}): Prompt {
  const workspace = name.slice(1, name.indexOf('/'));
  return {
    id: 'pmt_1',
    title: 'A prompt',
    tags: [],
    version: 'v1',
    workspaceSlug: workspace,
    packageName: `${name}:v1`,
    content: 'Hello {{name}}',
    context: [],
    metadata: { createdAt: 1_705_400_000_000 },
    ...fields,
  };
}

export function cli(args: string[], cwd: string, timeoutMs = 90_000) {
  return runBuiltCli(args, { cwd, env: { PROMPTLOCK_API_KEY: KEY }, timeoutMs });
}
