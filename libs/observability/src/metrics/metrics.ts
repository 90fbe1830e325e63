import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus registry and the metrics every service shares. Service-specific
 * metrics (admissions, guardrail outcomes, provider 429s) register on the same registry.
 */
export class PlatformMetrics {
  readonly registry = new Registry();

  /** NATS request-reply handled by this service, by subject and outcome (`ok` or an error code). */
  readonly rpcRequests: Counter<'subject' | 'outcome'>;
  readonly rpcDuration: Histogram<'subject'>;
  /** HTTP requests at the gateway, by method, route and status. */
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  /** Readiness checks of a dependency (`nats`, `database`) that failed. */
  readonly dependencyErrors: Counter<'dependency'>;

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
    this.rpcRequests = new Counter({
      name: 'bastion_rpc_requests_total',
      help: 'NATS requests handled',
      labelNames: ['subject', 'outcome'],
      registers: [this.registry],
    });
    this.rpcDuration = new Histogram({
      name: 'bastion_rpc_request_duration_seconds',
      help: 'NATS request handling time',
      labelNames: ['subject'],
      buckets,
      registers: [this.registry],
    });
    this.httpRequests = new Counter({
      name: 'bastion_http_requests_total',
      help: 'HTTP requests answered',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'bastion_http_request_duration_seconds',
      help: 'HTTP request time, first byte in to last byte out',
      labelNames: ['method', 'route', 'status'],
      buckets,
      registers: [this.registry],
    });
    this.dependencyErrors = new Counter({
      name: 'bastion_dependency_errors_total',
      help: 'Failed readiness checks of a dependency',
      labelNames: ['dependency'],
      registers: [this.registry],
    });
  }

  counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }
}
