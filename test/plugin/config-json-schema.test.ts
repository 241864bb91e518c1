/**
 * promptlock/schema.json: generated from the zod config schema, shipped in the package, and
 * agreeing with promptlock's own validation on the sample configs and on a table of good and bad
 * ones (validated with ajv, the validator behind editors' JSON support).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { configJsonSchema, configJsonSchemaText } from '../../scripts/config-json-schema.js';
import { parseUserConfig } from '../../src/config/parse-user-config.js';
import { readConfigFile } from '../../src/config/read-config-file.js';
import { initProject } from '../../src/init/index.js';
import { removeDir } from '../helpers/project.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeDir(dir);
});

/** ajv (a devDependency), compiled with the shipped schema. */
async function validator(): Promise<ValidateFunction> {
  return new Ajv({ allErrors: true, strict: true }).compile(JSON.parse(await readFile(path.join(ROOT, 'schema.json'), 'utf8')));
}

/** Whether promptlock's own loader accepts the object. */
function promptlockAccepts(config: unknown): boolean {
  try {
    parseUserConfig(config, 'test');
    return true;
  } catch {
    return false;
  }
}

describe('promptlock/schema.json', () => {
  it('is exactly what the zod config schema gives now, limits included, and is exported by the package', async () => {
    expect(await readFile(path.join(ROOT, 'schema.json'), 'utf8')).toBe(configJsonSchemaText());
    const schema = configJsonSchema();
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['$schema', 'baseUrl', 'prompts', 'snapshots', 'lockfile', 'output', 'concurrency', 'limits']),
    );
    expect(Object.keys((schema.properties.limits as { properties: object }).properties)).toContain('promptBytes');
    expect(schema.additionalProperties).toBe(false);
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
      files: string[];
    };
    expect(pkg.exports['./schema.json']).toBe('./schema.json');
    expect(pkg.files).toContain('schema.json');
  });

  it('validates the sample configs: the repository config, the starter template, init --format json, a package.json key', async () => {
    const validate = await validator();
    const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-schema-'));
    dirs.push(dir);
    await initProject({ dir, packageJson: false, force: false, format: 'json' });
    const samples = {
      'prompts.config.ts': (await readConfigFile(ROOT, 'prompts.config.ts'))!.config,
      'templates/prompts.config.ts': (await readConfigFile(ROOT, 'templates/prompts.config.ts'))!.config,
      'init --format json': JSON.parse(await readFile(path.join(dir, 'prompts.config.json'), 'utf8')),
      'package.json "promptlock"': {
        prompts: ['@acme/*:draft', '@acme/onboarding:v3'],
        output: 'app/prompts.ts',
        limits: { jsonDepth: 32 },
      },
    };
    for (const [name, config] of Object.entries(samples)) {
      expect(validate(config), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(promptlockAccepts(config), name).toBe(true);
    }
  });

  it('rejects wrong configs, as promptlock does, and accepts what it accepts', async () => {
    const validate = await validator();
    const bad = [
      { promtps: ['@acme/*'] },
      { concurrency: 0 },
      { concurrency: 2.5 },
      { prompts: ['acme/welcome'] },
      { prompts: ['@acme/welcome:v'] },
      { prompts: [42] },
      { output: 'src/prompts.py' },
      { snapshots: '' },
      { limits: { promptBytes: 0 } },
      { limits: { promtBytes: 10 } },
      { contextFiles: 'yes' },
      { watchInterval: 0 },
    ];
    for (const config of bad) {
      expect(validate(config), JSON.stringify(config)).toBe(false);
      expect(promptlockAccepts(config), JSON.stringify(config)).toBe(false);
    }
    const good = [
      {},
      { $schema: './node_modules/promptlock/schema.json', prompts: [] },
      { prompts: ['@acme/*', '@acme/welcome:latest', '@globex/welcome:v12', '@acme/x:draft'], workspace: 'acme' },
      { baseUrl: 'https://prompts.example.com', timeout: 5000, limits: { listItems: 10 } },
    ];
    for (const config of good) {
      expect(validate(config), `${JSON.stringify(config)}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(promptlockAccepts(config), JSON.stringify(config)).toBe(true);
    }
  });
});
