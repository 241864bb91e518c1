/**
 * The `prompt.json` files of a hand-authored workspace (docs/local-service.md). Strict objects, so
 * a misspelt key is an error naming the file and the key instead of a silently ignored value.
 */
import * as z from 'zod';

/** Unix milliseconds, or an ISO 8601 date-time that is turned into them. */
const time = z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true }).transform((text) => Date.parse(text))]);

const urlItem = z.strictObject({
  type: z.literal('url'),
  id: z.string().min(1).optional(),
  label: z.string().nullable().optional(),
  url: z.url(),
  fetchedAt: time.optional(),
  createdAt: time.optional(),
});

const fileItem = z.strictObject({
  type: z.literal('file'),
  id: z.string().min(1).optional(),
  label: z.string().nullable().optional(),
  /** Path relative to the package folder, e.g. `files/faq.pdf`. */
  file: z.string().min(1),
  mimeType: z.string().min(1).optional(),
  createdAt: time.optional(),
});

const contextItemSchema = z.discriminatedUnion('type', [urlItem, fileItem]);
export type AuthoredContextItem = z.infer<typeof contextItemSchema>;

const shared = {
  title: z.string().min(1).optional(),
  description: z.string().nullable().optional(),
  category: z.string().nullable().optional(),
  tags: z.array(z.string()).optional(),
  createdAt: time.optional(),
  context: z.array(contextItemSchema).optional(),
};

/** `<package>/prompt.json`: what every version shares. */
export const packageMetaSchema = z.strictObject({ ...shared, id: z.string().min(1).optional() });
export type PackageMeta = z.infer<typeof packageMetaSchema>;

/** `<package>/v3/prompt.json`: overrides for one version. */
export const versionMetaSchema = z.strictObject(shared);
export type VersionMeta = z.infer<typeof versionMetaSchema>;
