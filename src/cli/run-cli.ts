import { Command, CommanderError, Option } from 'commander';
import { VERSION } from '../version.js';
import type { CliRuntime } from './action.js';
import { registerAdd, registerRemove } from './commands/add.js';
import { registerCheck } from './commands/check.js';
import { registerDiff } from './commands/diff.js';
import { registerGenerate } from './commands/generate.js';
import { registerInit } from './commands/init.js';
import { registerMcp } from './commands/mcp.js';
import { registerServe } from './commands/serve.js';
import { registerSync } from './commands/sync.js';
import { registerWatch } from './commands/watch.js';
import { registerWhich } from './commands/which.js';
import type { CliIO } from './context.js';
import { jsonFailure } from './format-error.js';

function defaultIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** Two or three typical uses of each command, printed under its --help. */
const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  init: [
    'promptlock init                     # prompts.config.ts + "prepare" and "prompts:sync" scripts',
    'promptlock init --no-package-json   # print the scripts instead of editing package.json',
    'promptlock init --ci github         # also the CI workflow: checks pull requests, opens prompt updates',
  ],
  sync: [
    'promptlock sync                     # everything the config asks for',
    'promptlock sync @acme/support-reply  # only this prompt',
    'promptlock sync --frozen            # CI: exactly what the lockfile says',
  ],
  generate: [
    'promptlock generate                 # the module from lockfile + snapshots, no network',
    'promptlock generate --json',
    'promptlock check || promptlock generate   # an edited or deleted module is always rebuilt',
  ],
  check: [
    'promptlock check                    # CI: lockfile, snapshots and module agree, module type-checks',
    'promptlock check --remote           # also compare the lockfile with the service',
  ],
  diff: [
    'promptlock diff                     # what sync would change; breaking changes first',
    'promptlock diff --format markdown > prompt-changes.md   # a PR comment',
    "promptlock diff --json | jq '.changes[] | select(.breaking)'",
  ],
  watch: [
    'promptlock watch                    # regenerate on edits, poll the service every watchInterval s',
    'promptlock watch --interval 5 --rate-limit 300',
  ],
  add: ['promptlock add @acme/support-reply  # add to the config and sync it', 'promptlock add @acme/onboarding:v3 --no-sync'],
  remove: ['promptlock remove @acme/onboarding', 'promptlock remove @acme/onboarding --no-sync'],
  which: [
    'promptlock which sha256-vQxTfm31…=            # the commits that locked this text, and its pull request',
    'promptlock which @acme/support-reply@v4      # by the name and version a trace carries',
  ],
  mcp: [
    'promptlock mcp                      # the locked prompts to an MCP client, on stdio',
    'promptlock mcp -c apps/web/prompts.config.ts   # the prompts of another app of the repository',
  ],
  serve: [
    "promptlock serve --dir prompts --port 0          # serve a synced project's snapshots",
    'promptlock serve --dir examples/workspace --key acme=sk_test_…   # a key for one workspace',
    'promptlock serve --limit-per-minute 5 --minute-ms 2000 --verbose   # tight limits, access log',
  ],
};

function buildProgram(runtime: CliRuntime): Command {
  const { io } = runtime;
  const program = new Command('promptlock')
    .description('Turn prompts kept in a prompt service into reviewed, versioned, typed code.')
    .version(VERSION, '-V, --version')
    .addOption(new Option('-c, --config <file>', 'config file (default: searched from the current folder)'))
    .addOption(new Option('--json', 'print one machine-readable summary on stdout'))
    .addOption(new Option('-q, --quiet', 'print only errors'))
    .addOption(new Option('--verbose', 'print details of every step'))
    .showHelpAfterError('(run with --help for usage)')
    // Every command's --help lists -c, --json, -q and --verbose too.
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  for (const register of [
    registerInit,
    registerSync,
    registerGenerate,
    registerCheck,
    registerDiff,
    registerWatch,
    registerAdd,
    registerRemove,
    registerServe,
    registerWhich,
    registerMcp,
  ]) {
    register(program, runtime);
  }
  program.commands.forEach((command) => {
    command.exitOverride();
    const examples = EXAMPLES[command.name()];
    if (examples) command.addHelpText('after', `\nExamples:\n${examples.map((line) => `  $ ${line}`).join('\n')}\n`);
  });
  return program;
}

/**
 * Runs the CLI with `argv` (without the node and script entries) and resolves to the exit code:
 * 0 success, 1 the operation failed, 2 usage or configuration error, 3 a sync that landed but
 * skipped a refused prompt (README, "Placeholders"). Never calls `process.exit`.
 */
export async function runCli(argv: readonly string[], io: CliIO = defaultIO()): Promise<number> {
  const runtime: CliRuntime = { io, exitCode: 0 };
  const program = buildProgram(runtime);
  if (argv.length === 0) {
    program.outputHelp();
    return 2;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors are already printed on stderr.
      if (error.exitCode === 0) return 0;
      if (argv.includes('--json')) {
        io.stdout.write(
          `${JSON.stringify(jsonFailure(argv.find((a) => !a.startsWith('-')) ?? '', 2, { message: error.message.replace(/^error: /, ''), code: 'usage' }), null, 2)}\n`,
        );
      }
      return 2;
    }
    throw error;
  }
  return runtime.exitCode;
}
