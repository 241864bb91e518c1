import type { Command } from 'commander';
import type { WhichResult } from '../../library.js';
import { terminalText } from '../../terminal-text.js';
import { action, type CliRuntime } from '../action.js';
import type { CommandContext } from '../context.js';

/**
 * The answer as text: the prompt and version, each commit that locked or released the text, and
 * the pull request's body of each that locked it. Commit messages, author names and what a lockfile
 * of the history says are text from outside: each is cleaned here, before the CLI's own colours go
 * around it (docs/security.md, "Text from outside in logs").
 */
function describe(ctx: CommandContext, result: WhichResult): string {
  const { colors } = ctx.logger;
  const short = (commit: string) => commit.slice(0, 12);
  const lines = [
    `${result.integrity} is the reviewed text of ${terminalText(`${result.name} ${result.version} (${result.lockfile})`)}:`,
    '',
  ];
  for (const c of result.commits) {
    const what = c.change === 'locked' ? colors.green('locked  ') : colors.yellow('released');
    lines.push(`  ${what} ${colors.bold(short(c.commit))} ${c.date.slice(0, 10)} ${terminalText(c.subject)} (${terminalText(c.author)})`);
  }
  lines.push('', result.atHead ? '  HEAD still locks it.' : '  HEAD no longer locks it.');
  for (const c of result.commits.filter((commit) => commit.change === 'locked')) {
    lines.push('');
    if (c.pullRequestBody === undefined) {
      lines.push(
        `The message of ${short(c.commit)} carries no pull request body (it was not committed by the update job of \`sync --report\`).`,
      );
      continue;
    }
    lines.push(colors.dim(`The pull request of ${short(c.commit)}, as \`promptlock sync --report\` wrote it:`), '');
    lines.push(terminalText(c.pullRequestBody).trimEnd());
  }
  return lines.join('\n');
}

export function registerWhich(program: Command, runtime: CliRuntime): void {
  program
    .command('which')
    .argument('<integrity|name@version>', 'a trace’s promptlock.prompt.integrity, or gen_ai.prompt.name@gen_ai.prompt.version')
    .description('name the commits whose lockfile holds a reviewed prompt text, and the pull request that brought it (git history)')
    .action(
      action(runtime, async (ctx, query: string) => {
        const [{ which }, { callerOf, projectOf }] = await Promise.all([import('../../library.js'), import('../caller.js')]);
        const result = await which(query, projectOf(ctx), callerOf(ctx));
        if (ctx.globals.json) ctx.logger.json({ command: 'which', ...result });
        else ctx.logger.result(describe(ctx, result));
        return 0;
      }),
    );
}
