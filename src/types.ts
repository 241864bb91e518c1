/** Types of the Prompt Service's resources (docs/service-interface.md), shared by client and server. */

/** One attached context file or URL. Unknown fields are kept as they came. */
export interface ContextItem {
  id: string;
  type: 'file' | 'url';
  label?: string | null | undefined;
  /** Unix milliseconds. */
  createdAt: number;
  url?: string | null | undefined;
  urlFetchedAt?: number | null | undefined;
  fileName?: string | null | undefined;
  fileSize?: number | null | undefined;
  mimeType?: string | null | undefined;
  [key: string]: unknown;
}
export type ContextItemType = ContextItem['type'];

/** `createdAt` in Unix milliseconds; `generatedAt` changes on every response, so snapshots drop it. */
export interface PromptMetadata {
  createdAt: number;
  generatedAt?: number | undefined;
  [key: string]: unknown;
}

/**
 * The prompt object answered by `POST /v1/prompts/get`, as `validatePrompt` (src/prompt-grammar.ts)
 * admits it: the nullable fields may also be absent (`critiquePrompt` is, in the public example);
 * unknown fields are kept (snapshots store the prompt as the service returned it).
 */
export interface Prompt {
  id: string;
  title: string;
  content: string;
  systemPrompt?: string | null | undefined;
  critiquePrompt?: string | null | undefined;
  description?: string | null | undefined;
  category?: string | null | undefined;
  tags: string[];
  /** `v0` is the draft, `v1`… are published versions. */
  version: string;
  workspaceSlug: string;
  /** Full package name, usually versioned (`@ws/pkg:v3`). */
  packageName: string;
  context: ContextItem[];
  metadata: PromptMetadata;
  [key: string]: unknown;
}

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
