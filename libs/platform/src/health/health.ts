export interface HealthReport {
  service: string;
  status: 'ok' | 'degraded';
  checks: Record<string, 'ok' | string>;
}

/** Runs named checks; a check that throws reports its message instead of 'ok'. */
export async function runHealthChecks(service: string, checks: Record<string, () => Promise<unknown>>): Promise<HealthReport> {
  const results: Record<string, string> = {};
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await check();
        results[name] = 'ok';
      } catch (err) {
        results[name] = err instanceof Error ? err.message : String(err);
      }
    }),
  );
  const ok = Object.values(results).every((r) => r === 'ok');
  return { service, status: ok ? 'ok' : 'degraded', checks: results };
}
