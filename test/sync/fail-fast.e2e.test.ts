/**
 * Item 2: fail fast, once, and name the real cause. Built CLI against `promptlock serve` (and a
 * loopback HTML page): a 401 ends the run at the first answer with one message, an unreachable
 * address gives one message, no key for a remote service fails before any request, and an
 * address that is not a prompt service says so instead of blaming the prompt names.
 */

import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import { runCliInProcess as runBuiltCli, type ServeProcess, startServe } from '../helpers/cli.js';
import { makeProject, removeDir } from '../helpers/project.js';
import { writeServedFolder } from '../helpers/served-folder.js';

const NAMES = Array.from({ length: 6 }, (_, i) => `@bulk/prompt-${String(i).padStart(4, '0')}`);
const SERVER_KEY = 'sk_live_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2H1g0F9e8';
const OTHER_WORKSPACE_KEY = 'sk_live_' + 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8L9z0X1c2';
const dirs: string[] = [];
let serve: ServeProcess;

beforeAll(async () => {
  const served = await writeServedFolder(await mkdtemp(path.join(tmpdir(), 'promptlock-fail-fast-')), 6, 1);
  dirs.push(served);
  serve = await startServe(['--dir', served, '--key', SERVER_KEY, '--key', `other=${OTHER_WORKSPACE_KEY}`], served);
});
afterAll(async () => {
  await serve?.stop();
  for (const dir of dirs) await removeDir(dir);
});

async function project(baseUrl: string, prompts: string[] = NAMES): Promise<string> {
  const dir = await makeProject({ baseUrl, prompts });
  dirs.push(dir);
  return dir;
}

const errorLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('error:') || line.startsWith('  '));

describe('fail fast', () => {
  it('a rejected key: one message, and the service saw one request', async () => {
    const before = serve.requests().length;
    const run = await runBuiltCli(['sync'], { cwd: await project(serve.url), env: { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/rejected the API key/g)).toHaveLength(1);
    expect(run.stderr).not.toMatch(/prompts failed/);
    expect((await serve.settle(before + 1)).slice(before)).toHaveLength(1);
  });

  it('a key without access to the workspace (403): one message, and the service saw one request', async () => {
    const before = serve.requests().length;
    const run = await runBuiltCli(['sync'], { cwd: await project(serve.url), env: { PROMPTLOCK_API_KEY: OTHER_WORKSPACE_KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/has no access to workspace "bulk" \(403 forbidden\)/g)).toHaveLength(1);
    expect((await serve.settle(before + 1)).slice(before)).toHaveLength(1);
  });

  it('an address where nothing listens: one message', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await runBuiltCli(['sync'], { cwd: await project(`http://127.0.0.1:${port}`), env: { PROMPTLOCK_API_KEY: SERVER_KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/Could not reach the prompt service/g)).toHaveLength(1);
    expect(errorLines(run.stderr)).toHaveLength(2); // the message and its hint
  }, 30_000);

  it('no key and a remote baseUrl: exit 2 before any request, saying how to set the key', async () => {
    const run = await runBuiltCli(['sync'], { cwd: await project('https://prompts.example.invalid') });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: No API key is set for the prompt service at https://prompts.example.invalid.');
    expect(run.stderr).toContain(
      'Set PROMPTLOCK_API_KEY (or BAYT_API_KEY) in the environment, or in .env / .env.local at the project root.',
    );
    expect(run.stderr).not.toMatch(/ENOTFOUND|Could not reach/);
  });

  it('a baseUrl with a wrong path: "not a prompt service", naming the URL, not the prompt names', async () => {
    const wrong = `${serve.url}/api`;
    const run = await runBuiltCli(['sync'], { cwd: await project(wrong), env: { PROMPTLOCK_API_KEY: SERVER_KEY } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${wrong} is not a prompt service: GET /v1/prompts answered 404, and GET /v1/health answered 404.`);
    expect(run.stderr.match(/is not a prompt service/g)).toHaveLength(1);
    expect(run.stderr).not.toMatch(/was not found|check the name/i);
  });

  it('a baseUrl that answers an HTML page: "not a prompt service", once', async () => {
    const page = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><h1>Welcome</h1>'),
    );
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
      const run = await runBuiltCli(['sync'], { cwd: await project(url), env: { PROMPTLOCK_API_KEY: SERVER_KEY } });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`error: ${url} is not a prompt service (answered 200, text/html).`);
      expect(run.stderr.match(/is not a prompt service/g)).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => page.close(() => resolve()));
    }
  });
});
