/**
 * The text of templates/runtime.ts, inlined into every generated module so the module needs
 * nothing from promptlock at run time. Read from the package's `templates/` folder: next to `dist/`
 * when running built, two levels up from `src/codegen/` in tests.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PromptlockError } from '../errors.js';

const CANDIDATES = ['../templates/runtime.ts', '../../templates/runtime.ts'];

let cached: string | undefined;

/** The runtime as it goes into a module: its file comment replaced by a one-line marker. */
export function runtimeSource(): string {
  if (cached !== undefined) return cached;
  for (const candidate of CANDIDATES) {
    let text: string;
    try {
      text = readFileSync(fileURLToPath(new URL(candidate, import.meta.url)), 'utf8');
    } catch {
      continue;
    }
    // The file comment talks about the template file itself; the module gets a shorter one.
    const body = text.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '').replace(/\r\n/g, '\n').trimEnd();
    cached = `// Runtime helpers (copied from promptlock's templates/runtime.ts).\n\n${body}\n`;
    return cached;
  }
  throw new PromptlockError('Cannot find templates/runtime.ts in the promptlock package.', {
    hint: 'The installation looks incomplete: reinstall promptlock.',
  });
}
