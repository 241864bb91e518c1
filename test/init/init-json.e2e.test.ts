/**
 * `promptlock init --format json` (the built CLI): writes prompts.config.json referencing the
 * shipped JSON Schema, which promptlock then loads (the `$schema` key is not an option), and
 * refuses to overwrite it without --force. Run `npx tsup` first.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

async function emptyProject(): Promise<string> {
  const dir = await makeProject({});
  dirs.push(dir);
  await rm(path.join(dir, 'prompts.config.json'));
  await writeFile(path.join(dir, 'package.json'), '{ "name": "app" }\n');
  return dir;
}

describe('promptlock init --format json', () => {
  it('writes prompts.config.json with $schema pointing at promptlock/schema.json, and promptlock loads it', async () => {
    const dir = await emptyProject();
    const run = await runBuiltCli(['init', '--format', 'json'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Wrote prompts.config.json');
    expect(run.stderr).toContain(
      'Name the prompts to lock in prompts.config.json (its empty "prompts": [] locks every prompt the service lists)',
    );
    const written = JSON.parse(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')) as Record<string, unknown>;
    expect(written).toEqual({ $schema: './node_modules/promptlock/schema.json', prompts: [] });
    const config = await loadConfig({ cwd: dir, env: {} });
    expect(config.configPath).toBe(path.join(dir, 'prompts.config.json'));
    expect(config.prompts).toEqual([]);
  });

  it('refuses to overwrite it (exit 2) unless --force, and rejects an unknown format', async () => {
    const dir = await emptyProject();
    await writeFile(path.join(dir, 'prompts.config.json'), '{ "prompts": ["@acme/*"] }\n');
    const refused = await runBuiltCli(['init', '--format', 'json'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('prompts.config.json already exists');
    expect(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).toBe('{ "prompts": ["@acme/*"] }\n');
    const forced = await runBuiltCli(['init', '--format', 'json', '--force'], { cwd: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')).toContain('"$schema"');
    const wrong = await runBuiltCli(['init', '--format', 'yaml'], { cwd: dir });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('yaml');
  });
});
