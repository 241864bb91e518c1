/**
 * promptlock/otel with the real OpenTelemetry SDK: a tracer provider and the async-hooks context
 * manager registered as an app registers them, spans exported to memory.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { recordPrompt } from '../../src/integrations/otel.js';

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
