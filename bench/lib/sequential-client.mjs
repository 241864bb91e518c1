/**
 * The baseline client: one request at a time over one keep-alive connection, as the service's own
 * SDK does (list every page, then get each prompt in turn). Bounded: every request has a timeout.
 */
import { LOCAL_TEST_KEY } from '../../dist/index.js';

const TIMEOUT_MS = 30_000;

async function call(url, init) {
  const response = await fetch(url, {
    ...init,
    headers: { Authorization: `Bearer ${LOCAL_TEST_KEY}`, Accept: 'application/json', 'Content-Type': 'application/json' },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
  return body.data ?? body;
}

/** Lists every prompt (pages of 100); returns names and the time taken. */
export async function listSequentially(baseUrl) {
  const start = performance.now();
  const names = [];
  let cursor;
  for (;;) {
    const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const page = await call(`${baseUrl}/v1/prompts?${query}`);
    for (const item of page.prompts ?? page.items ?? []) names.push(item.packageName);
    if (!page.hasMore) break;
    cursor = page.cursor;
  }
  return { names, ms: performance.now() - start };
}

/** Gets `names` one after the other; returns the time taken. */
export async function getSequentially(baseUrl, names) {
  const start = performance.now();
  for (const name of names) {
    await call(`${baseUrl}/v1/prompts/get`, { method: 'POST', body: JSON.stringify({ package_name: name }) });
  }
  return { ms: performance.now() - start };
}
