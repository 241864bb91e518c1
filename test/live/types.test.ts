/**
 * The live wrapper is typed like the generated module: same keys, same variables, async results;
 * checked by the real TypeScript compiler in strict mode on a generated module and the built
 * `promptlock/live` declarations (dist/live.d.ts, as an app sees them).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { codegenPrompt, compileStrict } from '../codegen/helpers.js';

const DECLARATIONS = fileURLToPath(new URL('../../dist/live.d.ts', import.meta.url));

it("keeps each function's variables and return type, made async, plus status() and close()", () => {
  expect(existsSync(DECLARATIONS), 'dist/live.d.ts is needed: run `npx tsup` first (npm test builds)').toBe(true);
  const module = generateModule([
    codegenPrompt('@acme/greet', { content: 'Hello {{name}}, {{count:number}} items' }),
    codegenPrompt('@acme/welcome', { content: 'Welcome' }),
  ]);
  const app = `
import { prompts, type RenderedPrompt } from './prompts.js';
import { createLivePrompts, redisStore, type LivePromptStatus } from './live.js';

export async function main(): Promise<void> {
  const live = createLivePrompts(prompts, { ttl: 30, timeoutMs: 500, store: redisStore({ url: 'redis://127.0.0.1:6379' }), onEvent: (e) => void e.type });
  const greeting: RenderedPrompt = await live['@acme/greet']({ name: 'Ada', count: 3 });
  const welcome: Promise<RenderedPrompt> = live['@acme/welcome']();
  // @ts-expect-error count is missing
  await live['@acme/greet']({ name: 'Ada' });
  // @ts-expect-error count is a number
  await live['@acme/greet']({ name: 'Ada', count: '3' });
  // @ts-expect-error the result is a promise, not a prompt
  const notAwaited: RenderedPrompt = live['@acme/welcome']();
  // @ts-expect-error no such prompt
  await live['@acme/nope']();
  const status: LivePromptStatus[] = live.status();
  await live.close();
  void [greeting, welcome, notAwaited, status];
}
`;
  const errors = compileStrict({ '/prompts.ts': module, '/live.d.ts': readFileSync(DECLARATIONS, 'utf8'), '/app.ts': app });
  expect(errors).toEqual([]);
});
