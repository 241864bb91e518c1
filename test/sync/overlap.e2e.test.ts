/**
 * The list streams into the gets (docs/performance.md): gets start with the first list page
 * while the next pages come, a floating prompt is proven by the page that names it, a failing
 * page fails the run cleanly, and neither the order of pages nor of answers changes any output.
 * The real local service, behind a scripted loopback proxy that can hold or fail one list page:
 * every assertion is about the order of events, none about time.
 */

import { readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientOptionsFor, createClient } from '../../src/api/index.js';
import { requestedEntries } from '../../src/config/prompt-entry.js';
import { AggregatePromptlockError } from '../../src/errors.js';
import { callSync, loadProject, sync } from '../../src/library.js';
import { LOCAL_TEST_KEY } from '../../src/secrets.js';
import type { RunningServer } from '../../src/server/index.js';
import { encodeSnapshot } from '../../src/store/snapshot-format.js';
import { targetsOf } from '../../src/sync/resolve-targets.js';
import type { SyncEvent } from '../../src/sync/types.js';
import { runCliInProcess as runBuiltCli } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { hostileService, json } from '../helpers/hostile-network.js';
import { copyDir, storeTree } from '../helpers/project.js';
import { generatedPrompt, writeServedFolder } from '../helpers/served-folder.js';

const COUNT = 350; // 4 pages of at most 100 (the service's largest page): a page to fail with one after it
const PAGES = 4;
const nameOf = (i: number) => generatedPrompt(i, 1).packageName.split(':')[0]!;
const env = { PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };

const { serve, project, defer } = disposables();

const isList = (req: IncomingMessage) => req.method === 'GET' && (req.url ?? '').startsWith('/v1/prompts?');
const isGet = (req: IncomingMessage) => req.method === 'POST' && req.url === '/v1/prompts/get';

/** Passes a request on to the real service, unchanged, and its answer back. */
function forward(upstream: RunningServer, req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(upstream.url);
  const out = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
}

/** What the proxy does with one request; `page` counts list requests from 1. */
type Script = (req: IncomingMessage, res: ServerResponse, page: number | undefined) => void | Promise<void>;
let script: Script = () => {};
let pages = 0;
const proxied = hostileService((req, res) => {
  const page = isList(req) ? ++pages : undefined;
  void script(req, res, page);
});

/** The proxy in front of `upstream`, list pages counted afresh. */
async function proxyTo(
  upstream: RunningServer,
  how: (pass: () => void, req: IncomingMessage, res: ServerResponse, page: number | undefined) => void | Promise<void>,
) {
  pages = 0;
  script = (req, res, page) => how(() => forward(upstream, req, res), req, res, page);
  return proxied();
}

/** Resolves when `signal` is called, or says "safety" after a long while: only so that a broken sync cannot hang the test. */
function signalOrSafety(): { signal: () => void; reached: Promise<'signal' | 'safety'> } {
  let signal = () => {};
  const reached = new Promise<'signal' | 'safety'>((resolve) => {
    const safety = setTimeout(() => resolve('safety'), 15_000);
    signal = () => {
      clearTimeout(safety);
      resolve('signal');
    };
  });
  return { signal, reached };
}

let written: Promise<string> | undefined;
/** The COUNT prompts at revision 1, written once for the file. */
function promptsFolder(): Promise<string> {
  written ??= writeServedFolder(undefined, COUNT, 1).then((dir) => {
    defer(() => rm(dir, { recursive: true, force: true }));
    return dir;
  });
  return written;
}

const servers = new Map<string, Promise<RunningServer>>();
/**
 * The service over the COUNT prompts. Tests that only read share one server per `listNames`
 * (its counters reset for each); a test that publishes gets a copy of the folder of its own.
 */
async function servedFolder(listNames: 'full' | 'versioned' = 'full', publishes = false) {
  const prompts = await promptsFolder();
  if (publishes) {
    const served = `${prompts}-${servers.size}-${Math.random().toString(36).slice(2)}`;
    await copyDir(prompts, served);
    defer(() => rm(served, { recursive: true, force: true }));
    return { served, upstream: await serve({ dir: served, listNames }) };
  }
  if (!servers.has(listNames)) servers.set(listNames, serve({ dir: prompts, listNames }));
  const upstream = await servers.get(listNames)!;
  upstream.resetStats();
  return { served: prompts, upstream };
}

const files = { lockfile: 'prompts.lock.json', snapshots: 'prompts', output: 'prompts.ts' };

/** Publishes revision 2 of these prompts on the served folder. */
async function publish(upstream: RunningServer, served: string, indexes: number[]) {
  for (const i of indexes) {
    await writeFile(path.join(served, 'bulk', `prompt-${String(i).padStart(4, '0')}.json`), encodeSnapshot(generatedPrompt(i, 2)));
  }
  await upstream.reload();
}

describe('targetsOf', () => {
  it('adds each listed name once, page by page: the first glob of its workspace, an exact entry winning', () => {
    const wanted = targetsOf(requestedEntries(['@a/*:draft', '@a/x:v2', '@b/*', '@a/*', '@c/*']));
    expect(wanted.needsList).toBe(true);
    expect(wanted.exact).toEqual([{ name: '@a/x', selector: 'v2' }]);
    expect(wanted.add(['@a/x', '@a/y', '@z/unasked'])).toEqual([{ name: '@a/y', selector: 'draft' }]);
    expect(wanted.add(['@a/y', '@b/p'])).toEqual([{ name: '@b/p', selector: 'latest' }]);
    expect(() => wanted.finish()).toThrow('@c/* matched no prompt: the service lists none in workspace "c".');
    wanted.add(['@c/q']);
    expect(() => wanted.finish()).not.toThrow();
  });

  it('no entries: every listed name at latest; exact entries only: no list needed', () => {
    expect(targetsOf([]).add(['@a/x', '@b/y'])).toEqual([
      { name: '@a/x', selector: 'latest' },
      { name: '@b/y', selector: 'latest' },
    ]);
    expect(targetsOf(requestedEntries(['@a/x', '@a/y:latest'])).needsList).toBe(false);
  });
});

describe('listPages', () => {
  it('yields each validated page, asking for the next one only when asked', async () => {
    const { upstream } = await servedFolder();
    const client = createClient({ baseUrl: upstream.url, apiKey: LOCAL_TEST_KEY });
    try {
      const sizes: number[] = [];
      const listsWhenYielded: number[] = [];
      for await (const page of client.listPages()) {
        sizes.push(page.length);
        listsWhenYielded.push(upstream.stats.byRoute.list ?? 0);
      }
      expect(sizes).toEqual([100, 100, 100, 50]);
      expect(listsWhenYielded).toEqual([1, 2, 3, 4]);
      expect((await client.listAll()).map((p) => p.packageName)).toEqual(Array.from({ length: COUNT }, (_, i) => nameOf(i)));
    } finally {
      await client.close();
    }
  });
});

describe('gets start with the first list page', () => {
  it('a get reaches the service before the last list page is served (built CLI, glob)', async () => {
    const { upstream } = await servedFolder();
    const firstGet = signalOrSafety();
    let getsBeforeLastPage: number | undefined;
    let gets = 0;
    const service = await proxyTo(upstream, async (pass, req, _res, page) => {
      if (isGet(req) && ++gets === 1) firstGet.signal();
      // The last page is held until a get has come: a sync that waits for the whole list
      // before its first get would only get it from the safety release.
      if (page === PAGES && (await firstGet.reached) === 'signal') getsBeforeLastPage = gets;
      pass();
    });
    const dir = await project({ baseUrl: service.url, prompts: ['@bulk/*'], concurrency: 8, ...files });
    const run = await runBuiltCli(['sync', '--json'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ prompts: COUNT, fetched: COUNT });
    expect(getsBeforeLastPage).toBeGreaterThan(0);
    expect(pages).toBe(PAGES);
    expect(gets).toBe(COUNT);
    expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir })).code).toBe(0);
  });

  it('plain progress counts against the whole total, once the last page has come', async () => {
    const { upstream } = await servedFolder();
    const dir = await project({ baseUrl: upstream.url, prompts: ['@bulk/*'], ...files });
    const run = await runBuiltCli(['sync'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n');
    const listing = lines.indexOf('Listing prompts…');
    const fetching = lines.indexOf(`Fetching ${COUNT} prompts…`);
    expect(listing).toBeGreaterThanOrEqual(0);
    expect(fetching).toBeGreaterThan(listing);
    // Prompts resolved before the total was known print no count of their own.
    const counts = lines.flatMap((line, at) => (/^\s+\d+\/\d+$/.test(line) ? [{ line: line.trim(), at }] : []));
    expect(counts.length).toBeGreaterThan(0);
    for (const { line, at } of counts) {
      expect(line).toMatch(new RegExp(`/${COUNT}$`));
      expect(at).toBeGreaterThan(fetching);
    }
    expect(counts.at(-1)?.line).toBe(`${COUNT}/${COUNT}`);
  });

  it('a floating prompt is proven by the page that names it, before the later pages come', async () => {
    const { upstream } = await servedFolder('versioned');
    // Exact entries only: the list is needed just for the proof. One on page 1, one on page 4.
    const early = nameOf(7);
    const late = nameOf(320);
    let hold = async () => {};
    const service = await proxyTo(upstream, async (pass, _req, _res, page) => {
      if (page === 2) await hold();
      pass();
    });
    const dir = await project({ baseUrl: service.url, prompts: [early, `${late}:latest`], ...files });
    expect(await sync({ cwd: dir, env })).toMatchObject({ fetched: 2 });

    const proven = signalOrSafety();
    let released: string | undefined;
    hold = async () => {
      released = await proven.reached;
    };
    const events: SyncEvent[] = [];
    const gets = upstream.stats.byRoute.get ?? 0;
    const warm = await sync({
      cwd: dir,
      env,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'prompt' && event.name === early) proven.signal();
      },
    });
    expect(released).toBe('signal');
    expect(warm).toMatchObject({ fetched: 0, savedByList: 2 });
    expect(upstream.stats.byRoute.get ?? 0).toBe(gets);
    expect(events.filter((e) => e.type === 'prompt').map((e) => e.type === 'prompt' && e.name)).toEqual([early, late]);
  });
});

describe('a list page that fails', () => {
  it('fails the sync with the list error, starts nothing after it and leaves the files as they were', async () => {
    const { served, upstream } = await servedFolder('full', true);
    let failing = false;
    let gets = 0;
    let getsWhenFailed: number | undefined;
    const service = await proxyTo(upstream, (pass, req, res, page) => {
      if (isGet(req)) gets++;
      if (failing && page === 3) {
        getsWhenFailed = gets;
        json(res, 400, { error: { code: 'validation_error', message: 'cursor is not one this service issued.' } });
        return;
      }
      pass();
    });
    const concurrency = 4;
    const dir = await project({ baseUrl: service.url, prompts: ['@bulk/*'], concurrency, ...files });
    await sync({ cwd: dir, env });
    await publish(upstream, served, [3, 250, 340]);
    const before = await storeTree(dir);

    failing = true;
    gets = 0;
    pages = 0;
    // In process: an unhandled rejection would fail this test file.
    const error = await sync({ cwd: dir, env }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('listing prompts (page 3)');
    expect(error?.message).toContain('cursor is not one this service issued');
    expect(pages).toBe(3);
    // Only the gets already on the wire (the pool keeps one of the client's slots for the list).
    expect(gets - getsWhenFailed!).toBeLessThanOrEqual(concurrency);
    expect(await storeTree(dir)).toEqual(before);
    expect((await runBuiltCli(['check', '--no-typecheck'], { cwd: dir })).code).toBe(0);
  });
});

describe('the same files whatever the order', () => {
  it('glob + exact + pinned + floating proven by the list: as a --refetch run one prompt at a time', async () => {
    const { served, upstream } = await servedFolder('versioned', true);
    const prompts = ['@bulk/*', `${nameOf(3)}:v1`, nameOf(320), `${nameOf(111)}:latest`, `${nameOf(200)}:v1`];
    const streamed = await project({ baseUrl: upstream.url, prompts, concurrency: 16, ...files });
    expect(await sync({ cwd: streamed, env })).toMatchObject({ prompts: COUNT, fetched: COUNT });
    const sequential = `${streamed}-sequential`;
    await copyDir(streamed, sequential);
    defer(() => rm(sequential, { recursive: true, force: true }));
    const config = JSON.parse(await readFile(path.join(sequential, 'prompts.config.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(path.join(sequential, 'prompts.config.json'), JSON.stringify({ ...config, concurrency: 1 }));

    // New versions on pages 1, 2, 3 and 4: two glob matches, two exact floating entries, one pinned.
    await publish(upstream, served, [5, 111, 3, 299, 320]);
    const warm = await sync({ cwd: streamed, env });
    expect(warm).toMatchObject({ fetched: 4, savedByList: COUNT - 6 });
    expect(warm.changed.map((c) => c.name).sort()).toEqual([nameOf(5), nameOf(111), nameOf(299), nameOf(320)]);
    const refetched = await sync({ cwd: sequential, env, refetch: true });
    expect(refetched).toMatchObject({ fetched: COUNT - 2, savedByList: 0 });

    expect(await storeTree(streamed)).toEqual(await storeTree(sequential));
    const lock = JSON.parse(await readFile(path.join(streamed, 'prompts.lock.json'), 'utf8')) as {
      prompts: Record<string, { version: string; selector: string | null }>;
    };
    expect(Object.keys(lock.prompts)).toEqual(Array.from({ length: COUNT }, (_, i) => nameOf(i)));
    expect(lock.prompts[nameOf(3)]).toMatchObject({ version: 'v1', selector: 'v1' });
    expect(lock.prompts[nameOf(320)]).toMatchObject({ version: 'v2', selector: null });
    expect(lock.prompts[nameOf(111)]).toMatchObject({ version: 'v2', selector: 'latest' });
    expect(lock.prompts[nameOf(5)]).toMatchObject({ version: 'v2', selector: 'latest' });
  });
});

describe('a service that keeps failing', () => {
  const down = hostileService((req, res) => {
    if (isGet(req)) json(res, 503, { error: { code: 'unavailable', message: 'The service is down for maintenance.' } });
    else json(res, 404, { error: { code: 'not_found', message: 'nothing here' } });
  });

  it('starts no further prompt once one has failed after its retries: the run fails after one retry cycle, not one per prompt', async () => {
    const service = await down();
    const prompts = Array.from({ length: 40 }, (_, i) => `${nameOf(i)}:v1`);
    const concurrency = 4;
    const dir = await project({ baseUrl: service.url, prompts, concurrency });
    // As the CLI runs it, its client retrying as often but after 1 ms backoffs instead of seconds.
    const config = await loadProject({ cwd: dir, env });
    const connect = async () => createClient({ ...clientOptionsFor(config), backoffBaseMs: 1 });
    const error = await callSync({ cwd: dir, env }, { config, connect }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // Told once: every prompt that ran failed alike.
    expect(error).not.toBeInstanceOf(AggregatePromptlockError);
    expect(error?.message).toMatch(/503/);
    const gets = service.seen.filter((r) => r.method === 'POST').length;
    // The prompts already running finish their retries (6 attempts each); none of the other 36 starts.
    expect(gets).toBeGreaterThanOrEqual(6);
    expect(gets).toBeLessThanOrEqual(concurrency * 6);
  });
});

describe('an event handler that throws', () => {
  it('ends the sync with its error once the list it started has ended: no unhandled rejection, files as they were', async () => {
    const { upstream } = await servedFolder('versioned');
    // Floating prompts locked at the listed version: they wait for the list, which is still on
    // its first page when the fetch phase is announced.
    const dir = await project({
      baseUrl: upstream.url,
      prompts: Array.from({ length: COUNT }, (_, i) => nameOf(i)),
      concurrency: 4,
      ...files,
    });
    await sync({ cwd: dir, env });
    const before = await storeTree(dir);
    const lists = upstream.stats.byRoute.list ?? 0;
    const error = await sync({
      cwd: dir,
      env,
      onEvent: (event) => {
        if (event.type === 'phase' && event.phase === 'fetch') throw new Error('the handler failed');
      },
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toBe('the handler failed');
    // The listing was awaited, not left to fail against a closed client (which crashed the host).
    expect((upstream.stats.byRoute.list ?? 0) - lists).toBe(PAGES);
    expect(await storeTree(dir)).toEqual(before);
  });
});
