import type { PlatformMetrics } from '@bastion/observability';
import { PHASES, type PhaseTimings } from './server-timing';

/** Sub-millisecond buckets: auth and rpc are meant to take a fraction of a millisecond. */
const BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120,
];

/** `bastion_gateway_phase_duration_seconds{phase, route}`: the Server-Timing phases as a histogram. */
export class PhaseMetrics {
  private readonly histogram;

  constructor(metrics: PlatformMetrics) {
    this.histogram = metrics.histogram(
      'bastion_gateway_phase_duration_seconds',
      'Time per phase of a gateway request, as in its Server-Timing header',
      ['phase', 'route'],
      BUCKETS,
    );
  }

  observe(route: string, timings: PhaseTimings): void {
    for (const phase of PHASES) {
      const ms = timings[phase];
      if (ms !== undefined) this.histogram.observe({ phase, route }, ms / 1000);
    }
  }
}

/** The phase timings collected for one request (created on first use). */
export function requestTimings(req: object): PhaseTimings {
  const holder = req as { timings?: PhaseTimings };
  return (holder.timings ??= {});
}
