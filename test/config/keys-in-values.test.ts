/** A key pasted anywhere into a config value is refused, and never shown whole. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';

const KEY = `sk_live_${'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqr'.slice(0, 38)}1234`;

async function errorFor(config: unknown): Promise<ConfigError> {
  const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-keys-'));
  try {
    await writeFile(path.join(dir, 'prompts.config.json'), JSON.stringify(config));
    await loadConfig({ cwd: dir, env: {} });
  } catch (error) {
    return error as ConfigError;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  throw new Error('expected a ConfigError');
}

describe('keys inside config values', () => {
  it.each([
    ['in a URL query', { baseUrl: `https://a.io/?k=${KEY}` }, 'baseUrl'],
    ['as URL credentials', { baseUrl: `https://user:${KEY}@a.io` }, 'baseUrl'],
    ['after "Bearer"', { prompts: [`Bearer ${KEY}`] }, 'prompts[0]'],
  ])('%s: refused, naming the option, masked', async (_name, config, option) => {
    const error = await errorFor(config);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`option "${option}"`);
    expect(error.message).toContain('sk_live…1234');
    expect(`${error.message} ${error.hint}`).not.toContain(KEY);
  });

  it('refuses the project folder as the snapshots folder', async () => {
    const error = await errorFor({ snapshots: '.' });
    expect(error.message).toContain('Invalid value for option "snapshots"');
    expect(error.message).toContain('snapshots need a folder of their own');
  });
});
