/** git in a test repository, isolated from the machine's own git configuration. */
import { spawnSync } from 'node:child_process';

export function git(cwd: string, ...args: string[]): { code: number | null; out: string } {
  const run = spawnSync(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', '-c', 'core.autocrlf=false', ...args],
    { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } },
  );
  return { code: run.status, out: `${run.stdout}${run.stderr}` };
}

/** git that must succeed: its output, or an error with it. */
export function gitOk(cwd: string, ...args: string[]): string {
  const run = git(cwd, ...args);
  if (run.code !== 0) throw new Error(`git ${args.join(' ')} failed:\n${run.out}`);
  return run.out;
}
