/**
 * Injected failures for the client's reliability tests. A seeded generator (mulberry32) makes the
 * sequence of faults repeatable: the same seed and request order give the same failures.
 */
import { seededRandom } from './seeded-random.js';
import type { FaultKind, ResolvedServerOptions } from './server-options.js';

export interface FaultInjector {
  /** The fault for the next request, if it gets one. */
  next(): FaultKind | undefined;
}

export function createFaultInjector(faults: NonNullable<ResolvedServerOptions['faults']>): FaultInjector {
  const random = faults.seed === undefined ? Math.random : seededRandom(faults.seed);
  return {
    next() {
      if (random() >= faults.rate) return undefined;
      return faults.kinds[Math.floor(random() * faults.kinds.length)] ?? faults.kinds[0];
    },
  };
}
