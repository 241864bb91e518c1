import { runCli } from './run-cli.js';

/** The `promptlock` executable: run, then exit with the code `runCli` settled on. */
export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2));
  // Let pending writes flush; long-running commands (serve, watch) resolve only when stopped.
  process.exitCode = code;
}
