/**
 * Module size: the bytes of generated TypeScript each prompt adds to the module, for a prompt of
 * about 1 KB of text shaped like the README's `@acme/support-reply` (title, description, two tags,
 * three variables of which two are described, no critique, no context). Measured with the
 * library's `generate` on two stores, of 1 and of 101 such prompts: the difference over 100, so the
 * runtime the module carries once is not counted. Baseline: the prompt's text as the service
 * stores it (`{{name:type // description}}` placeholders included).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from '../../dist/index.js';
import { writeLockfile } from '../codegen.mjs';

const GOAL = 1600;

const SYSTEM =
  'You are the support agent of Acme Corp. Be professional, courteous and helpful. Never promise a refund the refund policy does not allow, never quote internal notes, and never guess an order number: ask for it.';
const CONTENT = [
  "Hello {{customer_name:string // The customer's first name}},",
  '',
  'You have {{count:number // Number of unread messages}} unread messages about {{topic}}.',
  '',
  'Read the ticket below and write a reply that answers every question it asks. Quote the refund policy when it applies, with the section number. If the customer is angry, acknowledge it in one sentence before answering. Keep the reply under 200 words, in plain text without markdown, and end with one question that moves the ticket forward.',
  "If the ticket is about a delivery, give the carrier's tracking link. If it is about a bill, give the invoice number and the amount. If you cannot answer, say who will, and by when. Sign with the team's name.",
  "Never share another customer's data, and never ask for a password or a full card number.",
];

function snapshot(i) {
  return {
    id: `pmt_ba4b91296f9250b6${String(i).padStart(4, '0')}`,
    title: 'Support reply',
    description: 'Answers a customer ticket',
    tags: ['customer-service', 'support'],
    version: 'v3',
    workspaceSlug: 'acme',
    packageName: `@acme/support-reply-${i}:v3`,
    systemPrompt: SYSTEM,
    content: CONTENT,
    critiquePrompt: null,
    context: [],
    metadata: { createdAt: 1737450000000 },
  };
}

/** A project of `count` such prompts, locked as sync locks them; returns the module's size in bytes. */
async function moduleBytes(dir, count) {
  const prompts = {};
  for (let i = 0; i < count; i++) {
    const text = `${JSON.stringify(snapshot(i), null, 2)}\n`;
    const file = path.join(dir, 'prompts', 'acme', `support-reply-${i}.json`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    prompts[`@acme/support-reply-${i}`] = {
      selector: null,
      version: 'v3',
      id: snapshot(i).id,
      exportName: `supportReply${i}`,
      integrity: `sha256-${createHash('sha256').update(text).digest('base64')}`,
      variables: [
        { name: 'customer_name', type: 'string', hint: 'string', description: "The customer's first name" },
        { name: 'count', type: 'number', hint: 'number', description: 'Number of unread messages' },
        { name: 'topic', type: 'string' },
      ],
    };
  }
  writeLockfile(dir, prompts);
  writeFileSync(path.join(dir, 'prompts.config.json'), '{}\n');
  await generate({ cwd: dir, env: {} });
  return readFileSync(path.join(dir, 'src', 'generated', 'prompts.ts')).byteLength;
}

export async function run({ log = () => {} } = {}) {
  const work = mkdtempSync(path.join(tmpdir(), 'promptlock-bench-module-size-'));
  try {
    const one = await moduleBytes(path.join(work, 'one'), 1);
    const many = await moduleBytes(path.join(work, 'many'), 101);
    const perPrompt = (many - one) / 100;
    const text = Buffer.byteLength(SYSTEM) + Buffer.byteLength(CONTENT.join('\n'));
    log(`module of 1 prompt ${one} B, of 101 prompts ${many} B: ${perPrompt} B per prompt of ${text} B of text`);
    return [
      {
        scenario: 'module size (TypeScript, README-shaped prompt)',
        figure: 'bytes per prompt',
        value: perPrompt,
        unit: 'B',
        baseline: text,
        baselineLabel: "the prompt's text",
        ratio: perPrompt / text,
        ratioLabel: '× the text',
        goal: `≤ ${GOAL} B`,
        met: perPrompt <= GOAL,
        note: 'the rest is the prompt object, the typed parameter, the checked read of the variables and its entry in `prompts`',
      },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
