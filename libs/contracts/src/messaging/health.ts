/** What every service answers on its health subject: its readiness checks, one by one. */
export interface ServiceHealthView {
  service: string;
  status: 'ok' | 'degraded';
  checks: Record<string, 'ok' | string>;
}
