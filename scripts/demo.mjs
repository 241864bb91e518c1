#!/usr/bin/env node
// `npm run demo`: start the embedded local Prompt Service on a free loopback port with the sample
// workspace, sync this repository's prompts.config.ts against it with the built CLI, render a
// prompt through the generated module, and stop the service. No key or network of yours is used.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { LOCAL_TEST_KEY, startServer } from '../dist/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = path.join(root, 'bin', 'promptlock.js');

function run(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const server = await startServer({ dir: path.join(root, 'examples/workspace'), port: 0 });
let code = 1;
try {
  const counts = server.counts();
  console.log(
    `▶ local Prompt Service on ${server.url} (${counts.prompts} prompts in ${counts.workspaces} workspaces from examples/workspace)`,
  );
  console.log('▶ promptlock sync   (prompts.config.ts → examples/app/)');
  const env = { PROMPTLOCK_BASE_URL: server.url, PROMPTLOCK_API_KEY: LOCAL_TEST_KEY };
  code = await run(['sync'], env);
  if (code === 0) {
    console.log('▶ promptlock check');
    code = await run(['check'], env);
  }
  if (code === 0) {
    // Render one prompt through the generated module, as app code would.
    const source = await readFile(path.join(root, 'examples/app/src/generated/prompts.ts'), 'utf8');
    const { code: js } = await transform(source, { loader: 'ts', format: 'esm' });
    const dir = await mkdtemp(path.join(tmpdir(), 'promptlock-demo-'));
    try {
      const file = path.join(dir, 'prompts.mjs');
      await writeFile(file, js);
      const { supportReply } = await import(pathToFileURL(file).href);
      const rendered = supportReply({ customer_name: 'Ada', count: 3, topic: 'a late refund' });
      console.log(`▶ supportReply({ customer_name: 'Ada', count: 3, topic: 'a late refund' })  ·  ${rendered.packageName}`);
      console.log(rendered.content.replace(/^/gm, '  │ '));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
} finally {
  await server.close();
}
process.exitCode = code;
