/**
 * Helpers of the live prompts tests: an authored workspace to publish versions into, a generated
 * module (lockfile + code, built from the service's own answers, as `sync` does) to wrap, and a
 * counting proxy that tells how many gets each prompt caused at the service.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import path from 'node:path';
import { createClient } from '../../src/api/index.js';
import { type CodegenPrompt, generateModule } from '../../src/codegen/index.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { encodeLockfile, type Lockfile } from '../../src/store/lockfile-format.js';
import { snapshotIntegrity } from '../../src/store/snapshot-format.js';
import { listVariables, type PlaceholderReading } from '../../src/template/index.js';
import { promptTexts } from '../../src/types.js';
import { importModule } from '../codegen/helpers.js';

/** Publishes `version` (`v1`, `draft`…) of `@workspace/pkg` with this content, as an author would. */
export async function publish(root: string, name: string, version: string, content: string): Promise<void> {
  const [workspace, pkg] = name.slice(1).split('/') as [string, string];
  const dir = path.join(root, workspace, pkg);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'prompt.json'), JSON.stringify({ title: `Title of ${pkg}`, tags: ['live'] }));
  await writeFile(path.join(dir, `${version}.md`), content);
}

export interface GeneratedModule {
  prompts: Record<string, (...args: any[]) => any>;
  lockfilePath: string;
  modulePath: string;
}

/**
 * Syncs `entries` (`@ws/pkg` or `@ws/pkg:selector`) from the service into `dir` the way `sync`
 * does (the prompt as answered, a lock entry with its selector and variables), generates the
 * module and imports it.
 */
export async function generateFrom(
  baseUrl: string,
  dir: string,
  entries: readonly string[],
  readings: Readonly<Record<string, PlaceholderReading>> = {},
): Promise<GeneratedModule> {
  const client = createClient({ baseUrl, apiKey: LOCAL_TEST_KEY, retries: 0 });
  const items: CodegenPrompt[] = [];
  try {
    for (const entry of entries) {
      const [name, selector] = entry.split(':') as [string, string | undefined];
      const prompt = await client.getPrompt(entry);
      const { generatedAt: _volatile, ...metadata } = prompt.metadata;
      const kept = { ...prompt, metadata };
      items.push({
        name,
        prompt: kept,
        entry: {
          selector: selector ?? null,
          version: prompt.version,
          id: prompt.id,
          integrity: snapshotIntegrity(kept),
          ...(readings[name] ? { placeholders: readings[name] } : {}),
          variables: listVariables(promptTexts(prompt), name, readings[name]),
        },
      });
    }
  } finally {
    await client.close();
  }
  const lockfile: Lockfile = { lockfileVersion: 1, prompts: Object.fromEntries(items.map((item) => [item.name, item.entry])) };
  await mkdir(dir, { recursive: true });
  const lockfilePath = path.join(dir, 'prompts.lock.json');
  await writeFile(lockfilePath, encodeLockfile(lockfile));
  const source = generateModule(items);
  await writeFile(path.join(dir, 'prompts.ts'), source);
  const module = await importModule<{ prompts: GeneratedModule['prompts'] }>(source, dir);
  return { prompts: module.prompts, lockfilePath, modulePath: path.join(dir, 'prompts.mjs') };
}

export interface CountingProxy {
  url: string;
  /** `POST /v1/prompts/get` requests forwarded, by the `package_name` asked for (selector removed). */
  gets: Map<string, number>;
  /** When the first get passed, epoch milliseconds. */
  firstGetAt: number | undefined;
  close(): Promise<void>;
}

/** A loopback proxy in front of the service that counts gets per prompt. */
export async function countingProxy(target: string): Promise<CountingProxy> {
  const to = new URL(target);
  const proxy: CountingProxy = { url: '', gets: new Map(), firstGetAt: undefined, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url?.endsWith('/v1/prompts/get')) {
        try {
          const name = String(JSON.parse(body.toString('utf8')).package_name).replace(/:.*$/, '');
          proxy.gets.set(name, (proxy.gets.get(name) ?? 0) + 1);
          proxy.firstGetAt ??= Date.now();
        } catch {
          // Not JSON: forwarded as is, not counted.
        }
      }
      const forward = httpRequest(
        { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => {
        res.destroy();
      });
      forward.end(body);
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** Debian's redis-server (`.ci/run` installs it when missing). */
export const REDIS_SERVER = '/usr/bin/redis-server';

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A throw-away Redis on a loopback port, no persistence; stopped by PID. */
export async function startRedis(): Promise<{ url: string; child: ChildProcess; kill(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)));
  });
  await started.catch((error: unknown) => {
    if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    throw error;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
    await exited;
  };
  return { url: `redis://127.0.0.1:${port}`, child, kill };
}

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** A loopback service whose gets answer whatever `answer` returns (any status, headers, body). */
export async function scriptedService(
  answer: (packageName: string) => ScriptedAnswer,
): Promise<{ url: string; gets: string[]; close(): Promise<void> }> {
  const gets: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let name = '';
      try {
        name = String(JSON.parse(Buffer.concat(chunks).toString('utf8')).package_name);
      } catch {
        // Not JSON: answered as a get of ''.
      }
      gets.push(name);
      const reply = answer(name);
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    gets,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
