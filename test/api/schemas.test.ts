import { describe, expect, it } from 'vitest';
import { listPageSchema, promptSchema, readErrorBody, unwrapEnvelope } from '../../src/api/schemas.js';
import { describeProblem, validatePrompt } from '../../src/prompt-grammar.js';
import { describeIssue } from '../../src/util/describe-issue.js';

describe('readErrorBody', () => {
  const table: [string, unknown, ReturnType<typeof readErrorBody>][] = [
    [
      'flat code with message',
      { error: 'not_found', message: 'No prompt @a/b' },
      { code: 'not_found', message: 'No prompt @a/b', retryAfterSeconds: undefined },
    ],
    [
      'flat 404 with an empty message',
      { error: 'not_found', message: '' },
      { code: 'not_found', message: undefined, retryAfterSeconds: undefined },
    ],
    ['flat prose', { error: 'Invalid API key' }, { code: undefined, message: 'Invalid API key', retryAfterSeconds: undefined }],
    [
      'nested with retry_after',
      { error: { code: 'rate_limit_exceeded', message: 'slow down', retry_after: 12 } },
      { code: 'rate_limit_exceeded', message: 'slow down', retryAfterSeconds: 12 },
    ],
    [
      'nested inside data',
      { data: { error: { code: 'forbidden', message: 'no' } } },
      { code: 'forbidden', message: 'no', retryAfterSeconds: undefined },
    ],
    ['not JSON at all', undefined, { code: undefined, message: undefined, retryAfterSeconds: undefined }],
  ];
  it.each(table)('%s', (_name, given, want) => {
    expect(readErrorBody(given)).toEqual(want);
  });
});

describe('unwrapEnvelope', () => {
  it.each([
    ['wrapped', { data: { id: 'x' } }, { id: 'x' }],
    ['bare', { id: 'x', data: { kept: true } }, { id: 'x', data: { kept: true } }],
    ['bare without data', { id: 'x' }, { id: 'x' }],
  ])('%s', (_name, given, want) => {
    expect(unwrapEnvelope(given, 'id')).toEqual(want);
  });
});

describe('describeIssue', () => {
  const prompt = {
    id: 'p',
    title: 'T',
    content: 'c',
    tags: [],
    version: 'v1',
    workspaceSlug: 'a',
    packageName: '@a/b',
    context: [],
    metadata: { createdAt: 1 },
  };
  const table: [string, () => ReturnType<typeof promptSchema.safeParse>, string][] = [
    [
      'a wrong type deep in a list',
      () => listPageSchema.safeParse({ prompts: [{ id: 'a', title: 't', packageName: 'x' }, { id: 1 }], hasMore: false }) as never,
      'prompts[1].id: expected string',
    ],
    [
      'a nullable field given a number',
      () => promptSchema.safeParse({ ...prompt, systemPrompt: 5 }),
      'field "systemPrompt" must be a string or null',
    ],
    ['a missing metadata time', () => promptSchema.safeParse({ ...prompt, metadata: {} }), 'field "metadata.createdAt" is missing'],
    // The shape is the client's; the pattern of a version (an empty one too) is fetchPrompt's, below.
    [
      'a version not a string',
      () => promptSchema.safeParse({ ...prompt, version: 1 }),
      'field "version" 1 must be a version: "v" and digits ("v0" is the draft)',
    ],
  ];
  it.each(table)('%s', (_name, parse, want) => {
    const result = parse();
    expect(result.success).toBe(false);
    expect(describeIssue(result.error!)).toBe(want);
  });

  it('refuses an empty version by its pattern (validatePrompt, as fetchPrompt and the snapshot decoder run it)', () => {
    const check = validatePrompt({ ...prompt, version: '' });
    expect(check.ok ? undefined : describeProblem(check.problem)).toBe(
      'field "version" "" must be a version: "v" and digits ("v0" is the draft)',
    );
  });

  it('accepts the public example answer (no critiquePrompt)', () => {
    const example = {
      id: 'pmt_abc123',
      title: 'Customer Support Assistant',
      content: 'You are…',
      systemPrompt: 'Be professional',
      description: 'AI assistant',
      category: 'support',
      tags: ['support'],
      version: 'v1',
      workspaceSlug: 'acme-corp',
      packageName: '@acme-corp/support-assistant:v1',
      context: [
        {
          id: 'ctx_file_123',
          type: 'file',
          label: 'Product FAQ',
          fileName: 'product-faq.pdf',
          fileSize: 52428,
          mimeType: 'application/pdf',
          createdAt: 1705497600000,
        },
        {
          id: 'ctx_url_456',
          type: 'url',
          label: 'Knowledge Base',
          url: 'https://example.com/kb',
          urlFetchedAt: 1705497600000,
          createdAt: 1705497000000,
        },
      ],
      metadata: { createdAt: 1705400000000, generatedAt: 1705497600000 },
    };
    expect(promptSchema.parse(example)).toEqual(example);
  });
});
