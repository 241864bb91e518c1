/**
 * Injected failures for the client's reliability tests. A seeded generator (mulberry32) makes the
 * sequence of faults repeatable: the same seed and request order give the same failures.
 */
import type { FaultKind, ResolvedServerOptions } from './server-options.js';

export interface FaultInjector {
  /** The fault for the next request, if it gets one. */
  next(): FaultKind | undefined;
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createFaultInjector(faults: NonNullable<ResolvedServerOptions['faults']>): FaultInjector {
  const random = faults.seed === undefined ? Math.random : mulberry32(faults.seed);
  return {
    next() {
      if (random() >= faults.rate) return undefined;
      return faults.kinds[Math.floor(random() * faults.kinds.length)] ?? faults.kinds[0];
    },
  };
}
