/** Types of the Prompt Service's resources (spec/prompt-service-api.md), shared by client and server. */

export type ContextItemType = 'file' | 'url';

export interface ContextItem {
  id: string;
  type: ContextItemType;
  label?: string | null;
  /** Unix milliseconds. */
  createdAt: number;
  url?: string | null;
  urlFetchedAt?: number | null;
  fileName?: string | null;
  fileSize?: number | null;
  mimeType?: string | null;
}

export interface PromptMetadata {
  /** Unix milliseconds. */
  createdAt: number;
  /** Unix milliseconds; changes on every response, so snapshots drop it. */
  generatedAt?: number;
  [key: string]: unknown;
}

/** The prompt object answered by `POST /v1/prompts/get`. */
export interface Prompt {
  id: string;
  title: string;
  content: string;
  systemPrompt?: string | null;
  critiquePrompt?: string | null;
  description?: string | null;
  category?: string | null;
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
