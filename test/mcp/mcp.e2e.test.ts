/**
 * `promptlock mcp` through the official MCP SDK's client over stdio, against the built CLI (the
 * transport is a process): it lists the locked prompts of examples/app with their variables as
 * arguments, renders each exactly as the generated function does for the same values, answers a
 * bad argument with an MCP error, and tells the client when a sync changes a prompt.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError, PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateModule } from '../../src/codegen/index.js';
import { decodeLockfile, encodeLockfile } from '../../src/store/lockfile-format.js';
import { readLockedPrompts } from '../../src/store/read-store.js';
import { encodeSnapshot, snapshotIntegrity } from '../../src/store/snapshot-format.js';
import { importModule } from '../codegen/helpers.js';
import { disposables } from '../helpers/disposables.js';
import { copyDir, removeDir } from '../helpers/project.js';
import { waitUntil } from '../helpers/wait-until.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(REPO, 'bin/promptlock.js');
const use = disposables();

let project: string;
let client: Client;
let stderr = '';
const changes: number[] = [];
let generated: Record<string, (variables?: Record<string, unknown>) => Record<string, unknown>>;

/** A value of each type, as the generated function takes it, and as a person types it as an MCP argument (a string). */
const SAMPLE: Record<string, [unknown, string]> = {
  string: ['Ada "the first" {{not a placeholder}}', 'Ada "the first" {{not a placeholder}}'],
  number: [3.5, '3.50'],
  boolean: [false, 'false'],
  array: [['a', 'b'], '[ "a", "b" ]'],
  object: [{ k: [1] }, '{ "k": [ 1 ] }'],
};

beforeAll(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'promptlock-mcp-'));
  use.defer(() => removeDir(project));
  await copyDir(path.join(REPO, 'examples/app/prompts'), path.join(project, 'prompts'));
  await writeFile(path.join(project, 'prompts.lock.json'), await readFile(path.join(REPO, 'examples/app/prompts.lock.json')));
  await writeFile(path.join(project, 'prompts.config.json'), JSON.stringify({ contextFiles: true }));
  // The generated functions of this store, as `generate` writes them.
  const locked = await readLockedPrompts({
    rootDir: project,
    lockfilePath: path.join(project, 'prompts.lock.json'),
    snapshotsDir: path.join(project, 'prompts'),
  });
  generated = (await importModule<{ prompts: typeof generated }>(generateModule(locked), project)).prompts;

  const env: Record<string, string> = { ...(process.env as Record<string, string>), CI: 'true', NO_COLOR: '1' };
  delete env.PROMPTLOCK_API_KEY;
  delete env.BAYT_API_KEY;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: project, env, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  client = new Client({ name: 'promptlock-test', version: '1.0.0' });
  client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
    changes.push(Date.now());
  });
  await client.connect(transport);
}, 60_000);
afterAll(() => client?.close());

describe('promptlock mcp', () => {
  it('lists every locked prompt under its package name, its variables as required arguments', async () => {
    const { prompts } = await client.listPrompts();
    const lockfile = decodeLockfile(await readFile(path.join(project, 'prompts.lock.json'), 'utf8'), 'lockfile');
    expect(prompts.map((p) => p.name)).toEqual(Object.keys(lockfile.prompts).sort());
    const classify = prompts.find((p) => p.name === '@acme/classify-ticket')!;
    expect(classify.title).toBe('Classify ticket');
    expect(classify.description).toBe(
      `Routes a ticket to a queue (@acme/classify-ticket v1, reviewed as ${lockfile.prompts['@acme/classify-ticket']!.integrity})`,
    );
    expect(classify.arguments).toEqual([
      { name: 'queues', description: 'Queue names to choose from (a JSON array)', required: true },
      { name: 'priority', description: '1 (low) to 5 (urgent) (a number)', required: true },
      { name: 'urgent', description: 'Whether the customer flagged it urgent (true or false)', required: true },
      { name: 'ticket', required: true },
    ]);
    expect(stderr).toContain(`promptlock mcp: ${prompts.length} prompts of prompts.lock.json, on stdio`);
  });

  it('renders each prompt exactly as its generated function does for the same values', async () => {
    const { prompts } = await client.listPrompts();
    const lockfile = decodeLockfile(await readFile(path.join(project, 'prompts.lock.json'), 'utf8'), 'lockfile');
    for (const listed of prompts) {
      const variables = lockfile.prompts[listed.name]!.variables;
      const values = Object.fromEntries(variables.map((v) => [v.name, SAMPLE[v.type]![0]]));
      const args = Object.fromEntries(variables.map((v) => [v.name, SAMPLE[v.type]![1]]));
      const rendered = generated[listed.name]!(variables.length > 0 ? values : undefined);
      const answer = await client.getPrompt({ name: listed.name, arguments: args });
      const texts = answer.messages.map((m) => (m.content.type === 'text' ? m.content.text : m.content.type));
      expect(answer.messages.every((m) => m.role === 'user')).toBe(true);
      expect(texts, listed.name).toEqual(
        [rendered.systemPrompt, rendered.content].filter((text) => typeof text === 'string' && text !== ''),
      );
    }
  });

  it('answers a bad argument, a missing or an extra one, and an unknown prompt with an MCP invalid-params error', async () => {
    const bad = client.getPrompt({
      name: '@acme/classify-ticket',
      arguments: { queues: 'billing', priority: 'high', ticket: 'Help', team: 'x' },
    });
    await expect(bad).rejects.toBeInstanceOf(McpError);
    await expect(bad).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    await expect(bad).rejects.toThrow(
      '@acme/classify-ticket: argument "queues" is not JSON (a JSON array is expected): "billing"; argument "priority" is not a number: "high"; argument "urgent" is missing; it takes no argument "team". Its arguments: queues (a JSON array), priority (a number), urgent (true or false), ticket (text).',
    );
    await expect(client.getPrompt({ name: '@acme/nope' })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    // The server is still there.
    expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);
  });

  it('tells the client when a sync changes a prompt, and serves the new text', async () => {
    const lockfilePath = path.join(project, 'prompts.lock.json');
    const snapshotPath = path.join(project, 'prompts/globex/welcome.json');
    const prompt = JSON.parse(await readFile(snapshotPath, 'utf8'));
    const changed = { ...prompt, version: 'v9', packageName: '@globex/welcome:v9', content: 'A new welcome, {{name}}.' };
    const lockfile = decodeLockfile(await readFile(lockfilePath, 'utf8'), 'lockfile');
    lockfile.prompts['@globex/welcome'] = {
      ...lockfile.prompts['@globex/welcome']!,
      version: 'v9',
      integrity: snapshotIntegrity(changed),
      variables: [{ name: 'name', type: 'string' }],
    };
    await writeFile(snapshotPath, encodeSnapshot(changed));
    await writeFile(lockfilePath, encodeLockfile(lockfile));
    await waitUntil('a prompts/list_changed notification', () => changes.length > 0);
    const answer = await client.getPrompt({ name: '@globex/welcome', arguments: { name: 'Ada' } });
    expect(answer.messages.map((m) => (m.content.type === 'text' ? m.content.text : ''))).toEqual(['A new welcome, Ada.']);
    expect(stderr).not.toContain('could not be read');
  });
});
