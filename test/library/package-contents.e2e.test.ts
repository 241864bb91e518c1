/**
 * The package stands on its own on the npm page: a LICENSE, a repository, and every relative link
 * of the README (and of the docs/ pages it links to) names a file that `npm pack` ships.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The files `npm pack` would put in the tarball, relative to the package root. */
async function packedFiles(): Promise<Set<string>> {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, timeout: 60_000 });
  const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  return new Set(pack!.files.map((file) => file.path));
}

/** Relative link targets of a Markdown text outside code, without their `#anchor`. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target));
}

it('ships LICENSE (MIT) and names its repository', async () => {
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(manifest.license).toBe('MIT');
  expect(manifest.repository).toMatchObject({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/github\.com\//) });
  expect(await readFile(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} promptlock contributors\n/);
  expect(await packedFiles()).toContain('LICENSE');
});

it('ships every file a relative link of the README or of a linked docs/ page points at', async () => {
  const packed = await packedFiles();
  const pages = ['README.md'];
  const missing: string[] = [];
  for (let index = 0; index < pages.length; index++) {
    const page = pages[index]!;
    for (const link of relativeLinks(await readFile(path.join(ROOT, page), 'utf8'))) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(page), link));
      if (!packed.has(target)) missing.push(`${page} → ${link}`);
      else if (target.endsWith('.md') && !pages.includes(target)) pages.push(target);
    }
  }
  expect(pages.length).toBeGreaterThan(1);
  expect(missing).toEqual([]);
});
