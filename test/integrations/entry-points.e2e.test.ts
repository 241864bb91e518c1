/**
 * promptlock/messages and promptlock/otel as an app gets them: the built files behind the package's
 * `exports`, in an app's node_modules with nothing else. Bundled for a browser they hold no Node
 * import and none of the CLI; in Node without `@opentelemetry/api` installed, promptlock/otel loads
 * and records nothing, and still records on a span it is given.
 */
import { cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { build } from 'esbuild';
import { beforeAll, expect, it } from 'vitest';
import { disposables } from '../helpers/disposables.js';
import { removeDir } from '../helpers/project.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const use = disposables();
let app: string;

const prompt = {
  content: 'Hello Ada',
  systemPrompt: 'Be brief.',
  provenance: { name: '@acme/welcome', version: 'v2', integrity: `sha256-${'C'.repeat(43)}=`, source: 'snapshot' },
};

beforeAll(async () => {
  // Outside the repository: no node_modules above it holds @opentelemetry/api.
  app = await mkdtemp(path.join(tmpdir(), 'promptlock-entries-'));
  use.defer(() => removeDir(app));
  const pkg = path.join(app, 'node_modules/promptlock');
  await mkdir(path.join(pkg, 'dist'), { recursive: true });
  await cp(path.join(REPO, 'package.json'), path.join(pkg, 'package.json'));
  for (const file of ['messages.js', 'otel.js']) await cp(path.join(REPO, 'dist', file), path.join(pkg, 'dist', file));
  await writeFile(path.join(app, 'package.json'), '{ "type": "module" }\n');
});

async function bundle(source: string): Promise<string> {
  await writeFile(path.join(app, 'app.js'), source);
  const result = await build({
    entryPoints: [path.join(app, 'app.js')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

it('bundles for a browser with no Node import and nothing of the CLI', async () => {
  const messages = await bundle(
    "import { forOpenAIChat } from 'promptlock/messages';\nconsole.log(forOpenAIChat(globalThis.prompt).messages.length);\n",
  );
  expect(messages).not.toMatch(/node:|require\(|createRequire|commander|zod/);
  // The helper alone: a bundle of it costs about a kilobyte.
  expect(Buffer.byteLength(messages)).toBeLessThan(2048);
  const otel = await bundle("import { recordPrompt } from 'promptlock/otel';\nconsole.log(recordPrompt(globalThis.prompt));\n");
  expect(otel).not.toMatch(/from ?["']node:|import\(["']@opentelemetry|require\(["']@opentelemetry/);
});

it('loads in Node without @opentelemetry/api: records nothing on its own, and on a span it is given', async () => {
  const file = path.join(app, 'node_modules/promptlock/dist/otel.js');
  // The peer really is absent from where promptlock/otel looks for it.
  expect(() => createRequire(file).resolve('@opentelemetry/api')).toThrow(/Cannot find module/);
  const { recordPrompt } = await import(pathToFileURL(file).href);
  expect(recordPrompt(prompt)).toBeUndefined();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const span = provider.getTracer('app').startSpan('given');
  expect(recordPrompt(prompt, span)).toBe(span);
  span.end();
  expect(exporter.getFinishedSpans()[0]!.attributes['promptlock.prompt.integrity']).toBe(prompt.provenance.integrity);
  await provider.shutdown();
  // The file names the peer only as the text Node's require is given at run time.
  expect(await readFile(path.join(app, 'node_modules/promptlock/dist/otel.js'), 'utf8')).not.toMatch(/^import .*@opentelemetry/m);
});
