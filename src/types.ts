/** Types of the Prompt Service's resources (docs/service-interface.md), shared by client and server. */

import * as z from 'zod';

const nullableString = z.string().nullish();
const nullableNumber = z.number().nullish();

export const contextItemSchema = z.looseObject({
  id: z.string(),
  type: z.enum(['file', 'url']),
  label: nullableString,
  /** Unix milliseconds. */
  createdAt: z.number(),
  url: nullableString,
  urlFetchedAt: nullableNumber,
  fileName: nullableString,
  fileSize: nullableNumber,
  mimeType: nullableString,
});

/**
 * The prompt object answered by `POST /v1/prompts/get`, as the client accepts it: lenient on
 * nullable fields, strict on what later stages rely on; unknown fields are kept (snapshots store
 * the prompt as the service returned it). `Prompt` is derived from it; the tables of
 * `validatePrompt` (src/prompt-grammar.ts) require the same fields and add their grammar.
 */
export const promptObjectSchema = z.looseObject({
  id: z.string(),
  title: z.string(),
  content: z.string(),
  systemPrompt: nullableString,
  // Absent in the public example, null elsewhere: both are kept as they came.
  critiquePrompt: nullableString,
  description: nullableString,
  category: nullableString,
  tags: z.array(z.string()),
  /** `v0` is the draft, `v1`… are published versions. */
  version: z.string().min(1),
  workspaceSlug: z.string(),
  /** Full package name, usually versioned (`@ws/pkg:v3`). */
  packageName: z.string().min(1),
  context: z.array(contextItemSchema),
  /** `createdAt` in Unix milliseconds; `generatedAt` changes on every response, so snapshots drop it. */
  metadata: z.looseObject({ createdAt: z.number(), generatedAt: z.number().optional() }),
});

export type ContextItem = z.infer<typeof contextItemSchema>;
export type ContextItemType = ContextItem['type'];
export type Prompt = z.infer<typeof promptObjectSchema>;
export type PromptMetadata = Prompt['metadata'];

/** One item of `GET /v1/prompts`. `packageName` may be full, versioned, or a bare slug. */
export interface PromptSummary {
  id: string;
  title: string;
  packageName: string;
  [key: string]: unknown;
}

export interface PromptListPage {
  prompts: PromptSummary[];
  cursor?: string | null;
  hasMore: boolean;
}

export interface HealthStatus {
  status: string;
  timestamp: string;
}

export interface ServiceDescriptor {
  name: string;
  version: string;
  description: string;
  documentation: string;
  endpoints: {
    health: string;
    prompts: { get: string; list: string };
    [key: string]: unknown;
  };
}

/** `GET /api/v1/prompts/context/download-url?contextId=…` */
export interface ContextDownload {
  url: string;
  expiresIn: number;
}

/** The three prompt texts that may hold `{{variables}}`, in the order the SDK reads them. */
export const TEXT_FIELDS = ['content', 'systemPrompt', 'critiquePrompt'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

/** The prompt's three texts, labelled, in `TEXT_FIELDS` order (what `{{variables}}` are listed from). */
export function promptTexts(prompt: Pick<Prompt, TextField>): Array<{ label: TextField; text: string | null | undefined }> {
  return TEXT_FIELDS.map((label) => ({ label, text: prompt[label] }));
}

/** The prompt's fields in the order snapshots and generated objects list them; extra fields follow, sorted. */
export const PROMPT_FIELD_ORDER = [
  'id',
  'title',
  'description',
  'category',
  'tags',
  'version',
  'workspaceSlug',
  'packageName',
  'systemPrompt',
  'content',
  'critiquePrompt',
  'context',
  'metadata',
] as const;
