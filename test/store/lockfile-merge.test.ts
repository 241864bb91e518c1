import { describe, expect, it } from 'vitest';
import { LockfileError } from '../../src/errors.js';
import { encodeLockfile, type LockEntry, type Lockfile } from '../../src/store/lockfile-format.js';
import {
  conflictMarkerLine,
  decodeUnconflictedLockfile,
  mergeLockfiles,
  resolveLockfileConflict,
  splitConflict,
} from '../../src/store/lockfile-merge.js';

const entry = (version: string, selector: string | null = 'latest', tag = version): LockEntry => ({
  selector,
  version,
  id: 'pmt_1',
  integrity: `sha256-${Buffer.from(tag).toString('base64')}`,
  variables: [],
});
const lockfile = (prompts: Record<string, LockEntry>): Lockfile => ({ lockfileVersion: 1, prompts });

/** A conflicted text as git writes it, from the two (or three, with diff3) texts, hunk by line. */
function conflicted(common: string[], hunks: Array<{ at: number; ours: string[]; theirs: string[]; base?: string[] }>, eol = '\n') {
  const out: string[] = [];
  common.forEach((line, index) => {
    for (const hunk of hunks.filter((h) => h.at === index)) {
      out.push('<<<<<<< HEAD', ...hunk.ours);
      if (hunk.base) out.push('||||||| merged common ancestors', ...hunk.base);
      out.push('=======', ...hunk.theirs, '>>>>>>> feature');
    }
    out.push(line);
  });
  return out.map((line) => line + eol).join('');
}

describe('splitConflict', () => {
  it('returns undefined for a text without markers, and reads both sides of the default style', () => {
    expect(splitConflict('{\n  "a": 1\n}\n', 'x')).toBeUndefined();
    const text = conflicted(['a', 'b', 'c'], [{ at: 1, ours: ['o1', 'o2'], theirs: ['t1'] }]);
    const sides = splitConflict(text, 'x')!;
    expect(sides.ours).toBe('a\no1\no2\nb\nc\n');
    expect(sides.theirs).toBe('a\nt1\nb\nc\n');
    expect(sides.base).toBeUndefined();
    expect(sides.hunks).toBe(1);
    // Each side's line points back at the line of the conflicted file it came from.
    expect(sides.lines.theirs).toEqual([1, 6, 8, 9]);
  });

  it('reads diff3 conflicts with the ancestor, several hunks, and keeps CRLF line endings', () => {
    const text = conflicted(
      ['a', 'b', 'c', 'd'],
      [
        { at: 1, ours: ['o1'], theirs: ['t1'], base: ['b1'] },
        { at: 3, ours: [], theirs: ['t2', 't3'], base: ['b2'] },
      ],
      '\r\n',
    );
    const sides = splitConflict(text, 'x')!;
    expect(sides.hunks).toBe(2);
    expect(sides.ours).toBe('a\r\no1\r\nb\r\nc\r\nd\r\n');
    expect(sides.theirs).toBe('a\r\nt1\r\nb\r\nc\r\nt2\r\nt3\r\nd\r\n');
    expect(sides.base).toBe('a\r\nb1\r\nb\r\nc\r\nb2\r\nd\r\n');
    expect(conflictMarkerLine(text)).toBe(2);
  });

  it('has an ancestor only when every hunk has one', () => {
    const text = conflicted(
      ['a', 'b'],
      [
        { at: 0, ours: ['o'], theirs: ['t'], base: ['b'] },
        { at: 1, ours: ['o'], theirs: ['t'] },
      ],
    );
    expect(splitConflict(text, 'x')!.base).toBeUndefined();
  });

  it('counts only lines at column 0 with exactly seven marker characters', () => {
    const lookalikes = [
      '  "description": "<<<<<<< HEAD"',
      ' <<<<<<< indented',
      '<<<<<<<< eight',
      '<<<<<<<x',
      '======== eight',
      '=======x',
      ' =======',
      '>>>>>>>> eight',
      '||||||||',
    ];
    expect(splitConflict(lookalikes.join('\n'), 'x')).toBeUndefined();
    expect(conflictMarkerLine(lookalikes.join('\n'))).toBeUndefined();
    // The same lines inside a real conflict are content of their side.
    const text = conflicted(['a'], [{ at: 0, ours: lookalikes, theirs: ['t'] }]);
    expect(splitConflict(text, 'x')!.ours).toBe(`${lookalikes.join('\n')}\na\n`);
    // A bare start marker (no label) counts.
    expect(splitConflict('<<<<<<<\no\n=======\nt\n>>>>>>>\n', 'x')!.theirs).toBe('t\n');
  });

  it.each([
    ['<<<<<<< HEAD\no\n=======\nt\n', 1, 'never ends'],
    ['<<<<<<< HEAD\no\n=======\nt\n>>>>>>> x\n=======\n', 6, '"=======" is outside a conflict'],
    ['<<<<<<< HEAD\no\n>>>>>>> x\n', 3, 'has no "=======" before it'],
    ['<<<<<<< HEAD\n<<<<<<< HEAD\n', 2, 'inside the one opened at line 1'],
    ['<<<<<<< HEAD\n=======\n||||||| base\n', 3, 'is not after'],
  ])('a damaged conflict is an error naming the line (%#)', (text, line, what) => {
    let error: unknown;
    try {
      splitConflict(text, 'prompts.lock.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LockfileError);
    expect((error as Error).message).toContain(`prompts.lock.json has a damaged merge conflict at line ${line}`);
    expect((error as Error).message).toContain(what);
  });
});

describe('mergeLockfiles', () => {
  const latest = () => 'latest';

  it('keeps entries of one side, identical entries, and the higher version where both changed one', () => {
    const ours = lockfile({ '@a/x': entry('v2'), '@a/w': entry('v2'), '@a/z': entry('v5') });
    const theirs = lockfile({ '@a/y': entry('v4'), '@a/w': entry('v3'), '@a/z': entry('v5') });
    const merge = mergeLockfiles(ours, theirs, latest);
    expect(Object.fromEntries(Object.entries(merge.lockfile.prompts).map(([n, e]) => [n, e.version]))).toEqual({
      '@a/w': 'v3',
      '@a/x': 'v2',
      '@a/y': 'v4',
      '@a/z': 'v5',
    });
    expect(merge.decisions).toEqual([
      { name: '@a/w', kept: 'theirs', version: 'v3', other: 'v2', reason: 'higher version' },
      { name: '@a/x', kept: 'ours', version: 'v2', reason: 'ours only' },
      { name: '@a/y', kept: 'theirs', version: 'v4', reason: 'theirs only' },
    ]);
    // Higher by number, not by text: v10 beats v9; the draft v0 is lowest.
    expect(
      mergeLockfiles(lockfile({ '@a/w': entry('v10') }), lockfile({ '@a/w': entry('v9') }), latest).lockfile.prompts['@a/w']!.version,
    ).toBe('v10');
    expect(
      mergeLockfiles(lockfile({ '@a/w': entry('v0') }), lockfile({ '@a/w': entry('v1') }), latest).lockfile.prompts['@a/w']!.version,
    ).toBe('v1');
  });

  it('lets the config selector decide when the two sides locked different selectors', () => {
    const ours = lockfile({ '@a/w': entry('v0', 'draft') });
    const theirs = lockfile({ '@a/w': entry('v4', 'latest') });
    expect(mergeLockfiles(ours, theirs, () => 'draft').lockfile.prompts['@a/w']!.version).toBe('v0');
    expect(mergeLockfiles(ours, theirs, () => 'draft').decisions[0]!.reason).toBe('config selector');
    expect(mergeLockfiles(ours, theirs, () => 'latest').lockfile.prompts['@a/w']!.version).toBe('v4');
    // Neither side matches the config (or it no longer asks): the higher version.
    expect(mergeLockfiles(ours, theirs, () => 'v2').lockfile.prompts['@a/w']!.version).toBe('v4');
    expect(mergeLockfiles(ours, theirs, () => undefined).lockfile.prompts['@a/w']!.version).toBe('v4');
    // A pinned selector in the config picks the side pinned to it, even when the other is higher.
    const pinned = mergeLockfiles(lockfile({ '@a/w': entry('v2', 'v2') }), lockfile({ '@a/w': entry('v4', null) }), () => 'v2');
    expect(pinned.lockfile.prompts['@a/w']).toEqual(entry('v2', 'v2'));
  });

  it('breaks a same-version tie by the ancestor, else keeps ours; records both texts for sync to confirm', () => {
    const ours = lockfile({ '@a/d': entry('v0', 'draft', 'ours') });
    const theirs = lockfile({ '@a/d': entry('v0', 'draft', 'theirs') });
    const base = lockfile({ '@a/d': entry('v0', 'draft', 'ours') });
    const byBase = mergeLockfiles(ours, theirs, () => 'draft', base);
    expect(byBase.lockfile.prompts['@a/d']).toEqual(entry('v0', 'draft', 'theirs'));
    expect(byBase.decisions[0]!.reason).toBe('changed from ancestor');
    const tie = mergeLockfiles(ours, theirs, () => 'draft');
    expect(tie.lockfile.prompts['@a/d']).toEqual(entry('v0', 'draft', 'ours'));
    const texts = { ours: entry('v0', 'draft', 'ours').integrity, theirs: entry('v0', 'draft', 'theirs').integrity };
    expect(tie.decisions[0]).toMatchObject({ reason: 'same version', texts });
    expect(byBase.decisions[0]).toMatchObject({ texts });
  });
});

describe('resolveLockfileConflict', () => {
  /** Two lockfile texts conflicted line by line where they differ (what git does to adjacent changes). */
  function gitConflict(ours: string, theirs: string, eol = '\n'): string {
    const a = ours.split('\n');
    const b = theirs.split('\n');
    let start = 0;
    while (a[start] === b[start]) start++;
    let end = 0;
    while (a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
    const lines = [
      ...a.slice(0, start),
      '<<<<<<< HEAD',
      ...a.slice(start, a.length - end),
      '=======',
      ...b.slice(start, b.length - end),
      '>>>>>>> feature',
      ...a.slice(a.length - end),
    ];
    return lines.join(eol);
  }

  it('merges a conflicted lockfile (LF and CRLF) into one that keeps both sides', () => {
    const base = { '@a/w': entry('v1'), '@a/z': entry('v5') };
    const ours = encodeLockfile(lockfile({ ...base, '@a/x': entry('v1') }));
    const theirs = encodeLockfile(lockfile({ ...base, '@a/y': entry('v2'), '@a/w': entry('v3') }));
    for (const eol of ['\n', '\r\n']) {
      const merge = resolveLockfileConflict(gitConflict(ours, theirs, eol), 'prompts.lock.json', () => 'latest')!;
      expect(merge.hunks).toBe(1);
      expect(merge.lockfile).toEqual(lockfile({ '@a/w': entry('v3'), '@a/x': entry('v1'), '@a/y': entry('v2'), '@a/z': entry('v5') }));
    }
    expect(resolveLockfileConflict(ours, 'prompts.lock.json', () => 'latest')).toBeUndefined();
  });

  it('a side that is not a lockfile is an error naming the line of the conflicted file', () => {
    const text = [
      '{',
      '  "lockfileVersion": 1,',
      '  "prompts": {',
      '<<<<<<< HEAD',
      '  }',
      '=======',
      '  ]',
      '>>>>>>> feature',
      '}',
      '',
    ].join('\n');
    expect(() => resolveLockfileConflict(text, 'prompts.lock.json', () => 'latest')).toThrow(
      /prompts\.lock\.json: their side of its merge conflict is not a lockfile \(line 7\)/,
    );
    const wrongShape = [
      '{',
      '<<<<<<< HEAD',
      '  "lockfileVersion": 1,',
      '=======',
      '  "lockfileVersion": 9,',
      '>>>>>>> feature',
      '  "prompts": {}',
      '}',
      '',
    ].join('\n');
    expect(() => resolveLockfileConflict(wrongShape, 'prompts.lock.json', () => 'latest')).toThrow(
      /their side of its merge conflict is not a lockfile.*lockfileVersion/,
    );
  });

  it('anything but sync gets an error that says to run `promptlock sync`, not to delete the lockfile', () => {
    const text = gitConflict(encodeLockfile(lockfile({ '@a/x': entry('v1') })), encodeLockfile(lockfile({ '@a/y': entry('v1') })));
    let error: LockfileError | undefined;
    try {
      decodeUnconflictedLockfile(text, 'prompts.lock.json');
    } catch (e) {
      error = e as LockfileError;
    }
    expect(error?.message).toMatch(/^Lockfile prompts\.lock\.json has unresolved git merge conflict markers \(line \d+\)\.$/);
    expect(error?.hint).toContain('Run `promptlock sync`');
    expect(error?.hint).toContain('Do not delete the lockfile');
  });
});
