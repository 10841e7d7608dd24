import { performance } from "node:perf_hooks";

/** Latency percentiles of one series, in milliseconds. */
export interface Timing {
  p50: number;
  p99: number;
  mean: number;
  samples: number;
}

/**
 * Times several functions together: each round calls every one of them once, in turn, so a
 * change in machine load (a shared 2-core box) hits all series alike and their ratios hold.
 * `warmup` rounds are not measured.
 */
export async function measureTogether<Name extends string>(
  fns: Record<Name, () => unknown>,
  options: { warmup: number; iterations: number },
): Promise<Record<Name, Timing>> {
  const names = Object.keys(fns) as Name[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  for (let round = 0; round < options.warmup + options.iterations; round++) {
    for (const name of names) {
      const start = performance.now();
      await fns[name]();
      if (round >= options.warmup) samples[name].push(performance.now() - start);
    }
  }
  return Object.fromEntries(names.map((name) => [name, summarize(samples[name])])) as Record<Name, Timing>;
}

function summarize(samples: number[]): Timing {
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] as number;
  return {
    p50: at(0.5),
    p99: at(0.99),
    mean: samples.reduce((sum, s) => sum + s, 0) / samples.length,
    samples: samples.length,
  };
}

/** A millisecond figure for the table. */
export function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}
