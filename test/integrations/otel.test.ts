/**
 * promptlock/otel with the real OpenTelemetry SDK: a tracer provider and the async-hooks context
 * manager registered as an app registers them, spans exported to memory.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { recordPrompt } from '../../src/integrations/otel.js';
import { createLivePrompts } from '../../src/live/index.js';
import { LOCAL_TEST_KEY } from '../../src/server/index.js';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';
import { generateFrom, publish } from '../live/helpers.js';

const use = disposables();

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
  vi.unstubAllEnvs();
});
beforeEach(() => exporter.reset());

const reviewed = {
  content: 'Hello Ada',
  provenance: {
    name: '@acme/welcome',
    version: 'v2',
    integrity: 'sha256-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=',
    source: 'snapshot',
  },
};

it('puts the prompt’s name, version, reviewed integrity and source on the active span', async () => {
  const tracer = trace.getTracer('app');
  await tracer.startActiveSpan('answer', async (span) => {
    await Promise.resolve(); // the active span survives an await (AsyncLocalStorage)
    expect(recordPrompt(reviewed)).toBe(span);
    span.end();
  });
  expect(exporter.getFinishedSpans().map((s) => s.attributes)).toEqual([
    {
      'gen_ai.prompt.name': '@acme/welcome',
      'gen_ai.prompt.version': 'v2',
      'promptlock.prompt.integrity': reviewed.provenance.integrity,
      'promptlock.prompt.source': 'snapshot',
    },
  ]);
});

it('records on the span it is given, and nothing without a span or without provenance', () => {
  const span = trace.getTracer('app').startSpan('given');
  expect(recordPrompt(reviewed, span)).toBe(span);
  span.end();
  expect(recordPrompt(reviewed)).toBeUndefined(); // no active span here
  expect(recordPrompt({ content: 'no provenance' } as never)).toBeUndefined();
  expect(exporter.getFinishedSpans().map((s) => [s.name, s.attributes['gen_ai.prompt.name']])).toEqual([['given', '@acme/welcome']]);
});

it('a live prompt that followed a newer version carries it and the reviewed version, with the reviewed integrity', async () => {
  vi.stubEnv('PROMPTLOCK_API_KEY', LOCAL_TEST_KEY);
  const root = await mkdtemp(path.join(tmpdir(), 'promptlock-otel-live-'));
  use.defer(() => removeDir(root));
  await publish(path.join(root, 'ws'), '@acme/greet', 'v1', 'Hello {{name}}.');
  const server = await use.serve({ dir: path.join(root, 'ws') });
  // The app as built and reviewed: v1 generated and locked; then v2 is published.
  const app = await generateFrom(server.url, path.join(root, 'app'), ['@acme/greet:latest']);
  const reviewed = JSON.parse(await readFile(app.lockfilePath, 'utf8')).prompts['@acme/greet'].integrity;
  await publish(path.join(root, 'ws'), '@acme/greet', 'v2', 'Hi {{name}}!');
  await server.reload();
  const live = createLivePrompts(app.prompts, { baseUrl: server.url, lockfile: app.lockfilePath, ttl: 60 });
  use.defer(() => live.close());

  const prompt = await trace.getTracer('app').startActiveSpan('answer', async (span) => {
    const rendered = await live['@acme/greet']!({ name: 'Ada' });
    recordPrompt(rendered);
    span.end();
    return rendered;
  });
  expect(prompt.content).toBe('Hi Ada!');
  expect(exporter.getFinishedSpans()[0]!.attributes).toEqual({
    'gen_ai.prompt.name': '@acme/greet',
    'gen_ai.prompt.version': 'v2',
    'promptlock.prompt.integrity': reviewed,
    'promptlock.prompt.source': 'live',
    'promptlock.prompt.reviewed_version': 'v1',
  });
});
