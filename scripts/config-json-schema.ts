/**
 * The JSON Schema of promptlock configs (`prompts.config.json`, the "promptlock" key of
 * package.json), generated from the one zod schema (src/config/config-schema.ts) so the two
 * cannot drift. tsup's onSuccess writes it to schema.json (shipped as `promptlock/schema.json`);
 * test/plugin/config-json-schema.test.ts fails when the committed file is not what this gives.
 * What JSON Schema cannot say (plain http:// only for loopback, one selector per package) is
 * still checked by promptlock when it loads the config.
 */
import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { configSchema, OPTION_ALLOWED, type OptionName } from '../src/config/config-schema.js';
import { PROMPT_ENTRY_ALLOWED } from '../src/config/prompt-entry.js';

/** `@workspace/package[:vN|latest|draft]` or `@workspace/*[:selector]` (src/config/prompt-entry.ts). */
const PROMPT_ENTRY_PATTERN = '^@[a-z0-9-]+/(?:[a-z0-9-]+|\\*)(?::(?:v\\d+|latest|draft))?$';

type JsonSchema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };

export function configJsonSchema(): JsonSchema {
  const generated = z.toJSONSchema(configSchema, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const properties: JsonSchema['properties'] = {
    // Editors read this key to find the schema; promptlock ignores it.
    $schema: { type: 'string', description: 'The JSON Schema of this file, for editors: "./node_modules/promptlock/schema.json".' },
  };
  for (const [name, property] of Object.entries(generated.properties)) {
    properties[name] = { description: `Expected ${OPTION_ALLOWED[name as OptionName]}.`, ...property };
  }
  // zod checks the entries in a refinement, which JSON Schema cannot carry: say it as a pattern.
  properties.prompts = {
    ...properties.prompts,
    items: { type: 'string', pattern: PROMPT_ENTRY_PATTERN, description: PROMPT_ENTRY_ALLOWED },
  };
  const { $schema, ...rest } = generated;
  return {
    $schema,
    title: 'promptlock config',
    description: 'Options of prompts.config.json or of the "promptlock" key of package.json. Every option is optional.',
    ...rest,
    properties,
  };
}

/** The file's text: what `schema.json` holds. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

export async function writeConfigJsonSchema(file: string): Promise<void> {
  await writeFile(file, configJsonSchemaText());
}
