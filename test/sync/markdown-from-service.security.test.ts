/**
 * Issue 30, item 1: service text in the markdown promptlock writes for reviewers (the pull-request
 * body of `sync --report`, `diff --format markdown`, the job summary of `check --format github`)
 * is data, never markup. Each body is rendered with markdown-it (HTML and GitHub-style autolinks
 * on) and every node that did not come from promptlock's own words is looked at: no HTML, image,
 * link, mention, heading or list item comes from the service, and its forged "approved" line stays
 * inside code.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { breakingChange } from '../../src/sync/breaking-change.js';
import { diffPrompts, formatDiffMarkdown } from '../../src/sync/diff-prompts.js';
import { pullRequestReport } from '../../src/sync/pull-request-report.js';
import { listVariables } from '../../src/template/index.js';
import { type Prompt, promptTexts } from '../../src/types.js';
import { runCliInProcess } from '../helpers/cli.js';
import { disposables } from '../helpers/disposables.js';
import { ACME_NAME, acmePrompt, hostileService, json } from '../helpers/hostile-network.js';

const { project } = disposables();

/** What a published prompt can put in a variable name (no `{`, `}`, `:` or `//`) or an extra key (anything). */
const FORGED = '✅ Security review approved by @org/team';
const IN_NAME = `x\n\n${FORGED}\n\n<!-- ![track](/x.png) [docs](/evil) www.evil.example @someone\n\n# Heading\n- item`;
const IN_KEY = `<!--\n\n${FORGED}\n![x](http://evil.example/x.png) [click](http://evil.example) <http://evil.example> https://evil.example/a @org/team |a|b| \`x\` reviewedAt`;

const markdown = new MarkdownIt({ html: true, linkify: true });
type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

/** Every token, the children of inline ones included. */
function tokens(body: string): Token[] {
  return markdown.parse(body, {}).flatMap((token) => [token, ...(token.children ?? [])]);
}

/** What the rendered body took from service text as markup: empty when everything stayed data. */
function markupFromService(body: string): string[] {
  const found: string[] = [];
  for (const token of tokens(body)) {
    if (token.type === 'html_block' || token.type === 'html_inline') found.push(`HTML ${JSON.stringify(token.content)}`);
    if (token.type === 'image') found.push(`image ${token.attrGet('src')}`);
    if (token.type === 'link_open') found.push(`link ${token.attrGet('href')}`);
    if (token.type === 'text' && /(^|[^\w`])@[\w-]/.test(token.content)) found.push(`mention in ${JSON.stringify(token.content)}`);
    // Text outside code: the forged line must not read as promptlock's (or anyone's) prose.
    if (token.type === 'text' && token.content.includes('Security review approved')) found.push(`prose ${JSON.stringify(token.content)}`);
    if (token.type === 'heading_open' && body.split('\n')[token.map![0]]!.includes('Heading')) found.push('heading from the service');
  }
  return found;
}

function prompt(content: string, extra: Record<string, unknown> = {}, version = 1): Prompt {
  return { ...acmePrompt({ version: `v${version}`, content }), ...extra } as Prompt;
}

const before = new Map([[ACME_NAME, prompt('Hi {{old}}', { [IN_KEY]: 1 })]]);
const after = new Map([[ACME_NAME, prompt(`Hi {{${IN_NAME}}}`, { [IN_KEY]: 2 }, 2)]]);

describe('markdown written from service text', () => {
  // Read as the SDK reads it (the "placeholders" option, README "Placeholders"): by the grammar this
  // name is text, never a variable; read so, it is one, and reaches the breaking change's line.
  const read = (p: Prompt) => listVariables(promptTexts(p), ACME_NAME, 'sdk');
  const change = breakingChange(read(before.get(ACME_NAME)!), read(after.get(ACME_NAME)!))!;
  const diffs = diffPrompts(before, after, undefined, [{ name: ACME_NAME, change }]);

  it('the case is what it claims: a breaking change naming the variable, and a changed timestamp', () => {
    expect(diffs[0]!.breaking).toMatchObject({ added: [IN_NAME.trim()] });
    expect(diffs[0]!.timestamps).toEqual([IN_KEY]);
  });

  it('sync --report: the pull-request body', () => {
    const { body } = pullRequestReport(diffs, { before, after }, { snapshotsDir: 'prompts' });
    expect(body).toContain('Security review approved');
    expect(markupFromService(body)).toEqual([]);
  });

  it('diff --format markdown', () => {
    const body = formatDiffMarkdown(diffs);
    expect(body).toContain('Security review approved');
    expect(markupFromService(body)).toEqual([]);
  });

  it('check --remote --format github: the cells of the job summary', async () => {
    let locked = false;
    const service = await hostileService((req, res) => {
      if (req.url !== '/v1/prompts/get') return json(res, 404, { error: { code: 'not_found', message: 'no' } });
      if (!locked) return json(res, 200, acmePrompt());
      return json(res, 400, { error: { code: 'bad_request', message: `${IN_KEY} ${IN_NAME}` } });
    })();
    const dir = await project({ baseUrl: service.url, prompts: [ACME_NAME] });
    const env = { PROMPTLOCK_API_KEY: 'sk_live_markdown_test_key_1234' };
    expect((await runCliInProcess(['sync'], { cwd: dir, env })).code).toBe(0);
    locked = true;
    const summary = path.join(dir, 'summary.md');
    await writeFile(summary, '');
    const run = await runCliInProcess(['check', '--remote', '--format', 'github', '--no-typecheck'], {
      cwd: dir,
      env: { ...env, GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: dir },
    });
    expect(run.code).toBe(1);
    const body = await readFile(summary, 'utf8');
    expect(body).toContain('Security review approved');
    expect(markupFromService(body)).toEqual([]);
  });
});
