/**
 * When the request budget cannot check every floating prompt at the asked interval: how often each
 * is really checked, and the notice saying so with what to change. Table-driven: no clock, no service.
 */
import { describe, expect, it } from 'vitest';
import { budgetNotice, CLI_BUDGET_SETTINGS, checkPeriod, pollBudget } from '../../src/util/poll-budget.js';

describe('checkPeriod', () => {
  it.each([
    ['the issue: 60 prompts, every 1 s, 1,000/min (3 a poll)', 60, 1, 1000, 20],
    ['within the budget: 60 prompts every 30 s', 60, 30, 1000, 30],
    ['100 prompts every 30 s at 100 a poll', 100, 30, 1000, 30],
    ['the minute binds: 0.1 s polls of 1 request, 60 a minute', 100, 0.1, 300, 100],
    ['no floating prompt', 0, 5, 1000, 5],
  ] as const)('%s', (_name, floating, intervalSeconds, limitPerMinute, want) => {
    expect(checkPeriod(floating, pollBudget({ intervalSeconds, limitPerMinute }), intervalSeconds)).toBeCloseTo(want);
  });
});

describe('budgetNotice', () => {
  it('says how often each prompt is really checked, the budget, and what to change', () => {
    expect(budgetNotice({ floating: 60, intervalSeconds: 1, limitPerMinute: 1000, settings: CLI_BUDGET_SETTINGS })).toBe(
      'Each of the 60 floating prompts is checked about every 20 s, not every 1 s: polling keeps to 200 requests a minute ' +
        "(20% of the service's limit of 1000), 3 a poll. To check them more often, pin prompts to a version (those are not polled), " +
        'or raise --rate-limit if the service allows more than 1000 a minute; --interval 20 polls at the pace that is met.',
    );
  });

  it.each([
    ['the interval is met', { floating: 60, intervalSeconds: 30 }],
    ['nothing floats', { floating: 0, intervalSeconds: 1 }],
    ['exactly the share', { floating: 3, intervalSeconds: 1 }],
  ] as const)('nothing when %s', (_name, given) => {
    expect(budgetNotice({ ...given, settings: CLI_BUDGET_SETTINGS })).toBeUndefined();
  });

  it('long periods in minutes', () => {
    expect(budgetNotice({ floating: 1000, intervalSeconds: 1, limitPerMinute: 300, settings: CLI_BUDGET_SETTINGS })).toContain(
      'checked about every 17 min, not every 1 s',
    );
  });
});
