/**
 * A Vercel AI SDK call with promptlock/messages' output, against the SDK's own mock model and a real
 * OpenTelemetry tracer: the model receives the system prompt and the user turn, and the SDK's span
 * carries the prompt's reviewed identity from the telemetry metadata.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { expect, it } from 'vitest';
import { forVercelAI } from '../../src/integrations/messages.js';

const prompt = {
  content: 'Write to Ada about 3 open tickets.',
  systemPrompt: 'You answer support tickets.',
  critiquePrompt: 'Is the reply polite?',
  provenance: {
    name: '@acme/support-reply',
    version: 'v4',
    integrity: 'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    source: 'snapshot',
  },
};

function mockModel() {
  return new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: 'text', text: 'Dear Ada, …' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      },
      warnings: [],
    },
  });
}

it('generateText sends the system prompt and the content, and its span carries the prompt’s identity', async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const model = mockModel();
  const request = forVercelAI(prompt, { telemetry: { isEnabled: true, functionId: 'support-reply' } });
  // An app's own tracer goes beside the helper's settings.
  const tracer = provider.getTracer('app');
  const result = await generateText({ model, ...request, experimental_telemetry: { ...request.experimental_telemetry, tracer } });
  expect(result.text).toBe('Dear Ada, …');
  expect(model.doGenerateCalls[0]!.prompt).toEqual([
    { role: 'system', content: 'You answer support tickets.' },
    { role: 'user', content: [{ type: 'text', text: 'Write to Ada about 3 open tickets.' }] },
  ]);
  const span = exporter.getFinishedSpans().find((s) => s.name === 'ai.generateText');
  expect(span?.attributes).toMatchObject({
    'ai.telemetry.functionId': 'support-reply',
    'ai.telemetry.metadata.gen_ai.prompt.name': '@acme/support-reply',
    'ai.telemetry.metadata.gen_ai.prompt.version': 'v4',
    'ai.telemetry.metadata.promptlock.prompt.integrity': prompt.provenance.integrity,
    'ai.telemetry.metadata.promptlock.prompt.source': 'snapshot',
  });
  await provider.shutdown();
});

it('the critique pass sends the answer as the assistant turn and critiquePrompt after it', async () => {
  const model = mockModel();
  await generateText({ model, ...forVercelAI(prompt, { critique: 'Dear Ada, …' }) });
  expect(model.doGenerateCalls[0]!.prompt.slice(1)).toEqual([
    { role: 'user', content: [{ type: 'text', text: 'Write to Ada about 3 open tickets.' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Dear Ada, …' }] },
    { role: 'user', content: [{ type: 'text', text: 'Is the reply polite?' }] },
  ]);
});
