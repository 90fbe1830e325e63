export interface HealthReport {
  service: string;
  status: 'ok' | 'degraded';
  checks: Record<string, 'ok' | string>;
}

/** How long one check may take before it counts as failed: a dead database may not refuse, only hang. */
export const HEALTH_CHECK_TIMEOUT_MS = 1500;

/** Runs named checks; a check that throws or hangs reports why instead of 'ok'. */
export async function runHealthChecks(
  service: string,
  checks: Record<string, () => Promise<unknown>>,
  timeoutMs = HEALTH_CHECK_TIMEOUT_MS,
): Promise<HealthReport> {
  const results: Record<string, string> = {};
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        results[name] = 'ok';
      } catch (err) {
        results[name] = err instanceof Error ? err.message : String(err);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const ok = Object.values(results).every((r) => r === 'ok');
  return { service, status: ok ? 'ok' : 'degraded', checks: results };
}
