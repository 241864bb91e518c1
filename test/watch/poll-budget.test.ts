/**
 * The request budget and the round-robin walk, table-driven: no clock, no service.
 */
import { describe, expect, it } from 'vitest';
import { pollAllowance, pollBudget, RequestWindow, RoundRobin } from '../../src/util/poll-budget.js';

const names = (count: number) => Array.from({ length: count }, (_, i) => `@bulk/prompt-${String(i).padStart(4, '0')}`);

describe('pollBudget', () => {
  it.each([
    ['the issue: 1,000/min, every 30 s', { intervalSeconds: 30, limitPerMinute: 1000 }, { perMinute: 200, perPoll: 100 }],
    ['default limit', { intervalSeconds: 30 }, { perMinute: 200, perPoll: 100 }],
    ['--rate-limit 300, every second', { intervalSeconds: 1, limitPerMinute: 300 }, { perMinute: 60, perPoll: 1 }],
    ['fast polls still send one', { intervalSeconds: 0.1, limitPerMinute: 300 }, { perMinute: 60, perPoll: 1 }],
    ['slow polls never exceed a minute', { intervalSeconds: 600, limitPerMinute: 1000 }, { perMinute: 200, perPoll: 200 }],
    ['tiny limit', { intervalSeconds: 30, limitPerMinute: 1 }, { perMinute: 1, perPoll: 1 }],
    ['other share', { intervalSeconds: 60, limitPerMinute: 1000, share: 0.5 }, { perMinute: 500, perPoll: 500 }],
  ] as const)('%s', (_name, given, want) => {
    expect(pollBudget(given)).toEqual(want);
  });
});

describe('RoundRobin', () => {
  it('1,000 prompts at 100 per poll (1,000/min, 30 s): every prompt within 5 minutes of polls, once each', () => {
    const { perPoll } = pollBudget({ intervalSeconds: 30, limitPerMinute: 1000 });
    const robin = new RoundRobin();
    const all = names(1000);
    const seen = new Map<string, number>();
    for (let poll = 0; poll < (5 * 60) / 30; poll++) {
      for (const name of robin.take(all, perPoll)) seen.set(name, (seen.get(name) ?? 0) + 1);
    }
    expect(seen.size).toBe(1000);
    expect(new Set(seen.values())).toEqual(new Set([1]));
    expect(robin.laps).toBe(1);
  });

  it.each([
    [
      'wraps around',
      { list: ['a', 'b', 'c'], takes: [2, 2, 2] },
      [
        ['a', 'b'],
        ['c', 'a'],
        ['b', 'c'],
      ],
    ],
    ['count above the list length takes each once', { list: ['a', 'b'], takes: [5, 1] }, [['a', 'b'], ['a']]],
    ['nothing to take', { list: [], takes: [3] }, [[]]],
    ['zero count', { list: ['a'], takes: [0] }, [[]]],
    [
      'unsorted input is walked in order',
      { list: ['c', 'a', 'b'], takes: [2, 2] },
      [
        ['a', 'b'],
        ['c', 'a'],
      ],
    ],
  ] as const)('%s', (_name, given, want) => {
    const robin = new RoundRobin();
    expect(given.takes.map((count) => robin.take(given.list, count))).toEqual(want);
  });

  it.each([
    ['a name added behind the cursor waits for the wrap, nobody is skipped', ['a', 'c', 'd'], ['a', 'b', 'c', 'd'], ['d', 'a']],
    ['a name added ahead is reached in this lap', ['a', 'b', 'd'], ['a', 'b', 'c', 'd'], ['c', 'd']],
    ['the last name taken vanished: continue after it', ['a', 'b', 'c', 'd'], ['a', 'c', 'd'], ['c', 'd']],
  ] as const)('list changes between polls: %s', (_name, first, then, want) => {
    const robin = new RoundRobin();
    robin.take(first, 2);
    expect(robin.take(then, 2)).toEqual(want);
  });
});

describe('RequestWindow and pollAllowance', () => {
  const budget = { perMinute: 60, perPoll: 10 };
  it.each([
    ['empty window: a full poll', [], 0, 10],
    ['a nearly full minute caps the poll', [[0, 55]], 30_000, 5],
    ['a full minute allows nothing', [[0, 60]], 59_999, 0],
    ['requests older than a minute no longer count', [[0, 60]], 60_000, 10],
    [
      'only the requests inside the window count',
      [
        [0, 40],
        [30_000, 15],
      ],
      60_000,
      10,
    ],
    ['overshoot never goes negative', [[0, 70]], 1, 0],
  ] as const)('%s', (_name, sends, at, want) => {
    const window = new RequestWindow();
    for (const [time, count] of sends) window.record(count, time);
    expect(pollAllowance(budget, window, at)).toBe(want);
  });
});
