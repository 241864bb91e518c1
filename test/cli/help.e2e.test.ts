/** Item 13: every command's --help teaches: examples and the global flags; serve's --key default said once. */
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';

it.each(['init', 'sync', 'generate', 'check', 'diff', 'watch', 'add', 'remove', 'serve', 'which', 'mcp'])(
  '%s --help shows examples and the global flags',
  async (command) => {
    const run = await runBuiltCli([command, '--help'], { cwd: tmpdir() });
    expect(run.code).toBe(0);
    const examples = run.stdout.split('Examples:\n')[1] ?? '';
    const lines = examples.split('\n').filter((line) => line.startsWith(`  $ promptlock ${command}`));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(3);
    for (const flag of ['-c, --config <file>', '--json', '-q, --quiet', '--verbose']) expect(run.stdout).toContain(flag);
  },
);

it('serve --help states the --key default once', async () => {
  const run = await runBuiltCli(['serve', '--help'], { cwd: tmpdir() });
  const flat = run.stdout.replace(/\s+/g, ' ');
  expect(flat.match(/default: the documented test key/g)).toHaveLength(1);
  expect(flat).not.toContain('default: []');
});
