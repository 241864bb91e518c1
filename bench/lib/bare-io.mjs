/**
 * The cold sync's bare I/O, the baseline of its guard: list every page, get each listed prompt at
 * the sync's concurrency (gets start with the first page, as the sync's do), write each answer to
 * a file through a temporary file and a rename, and fsync once at the end. Nothing is validated,
 * hashed or generated. Requests go to the loopback service through undici (the client promptlock
 * uses) and every one has a timeout.
 */
import { mkdirSync } from 'node:fs';
import { open, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Pool } from 'undici';
import { LOCAL_TEST_KEY } from '../../dist/index.js';

const TIMEOUT_MS = 30_000;
const HEADERS = { authorization: `Bearer ${LOCAL_TEST_KEY}`, accept: 'application/json', 'content-type': 'application/json' };

async function call(pool, options) {
  const { statusCode, body } = await pool.request({ ...options, headers: HEADERS, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  const text = await body.text();
  if (statusCode !== 200) throw new Error(`${options.method} ${options.path}: ${statusCode} ${text.slice(0, 200)}`);
  return text;
}

/** Runs the bare I/O into `dir` (created) and resolves to `{ ms, gets }`. */
export async function bareIo(baseUrl, dir, concurrency) {
  const start = performance.now();
  const pool = new Pool(baseUrl, { connections: concurrency + 1 });
  mkdirSync(dir, { recursive: true });
  const queue = [];
  const waiting = [];
  let listed = false;
  let gets = 0;
  const wakeAll = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  const worker = async () => {
    for (;;) {
      const name = queue.shift();
      if (name === undefined) {
        if (listed) return;
        await new Promise((resolve) => waiting.push(resolve));
        continue;
      }
      const text = await call(pool, { path: '/v1/prompts/get', method: 'POST', body: JSON.stringify({ package_name: name }) });
      const file = path.join(dir, `${name.replace(/[@/:]/g, '_')}.json`);
      await writeFile(`${file}.tmp`, text);
      await rename(`${file}.tmp`, file);
      gets++;
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  try {
    let cursor;
    do {
      const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
      const page = JSON.parse(await call(pool, { path: `/v1/prompts?${query}`, method: 'GET' }));
      const data = page.data ?? page;
      for (const item of data.prompts ?? data.items ?? []) queue.push(item.packageName);
      cursor = data.hasMore ? data.cursor : undefined;
      wakeAll();
    } while (cursor);
  } finally {
    listed = true;
    wakeAll();
  }
  await Promise.all(workers);
  const handle = await open(dir, 'r');
  await handle.sync();
  await handle.close();
  await pool.close();
  return { ms: performance.now() - start, gets };
}
