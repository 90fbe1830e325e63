import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { DomainError, ErrorCode, type Principal } from '@bastion/contracts';
import type { FastifyRequest } from 'fastify';
import { defer, finalize, from, type Observable, of, switchMap } from 'rxjs';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { bodyBytesOf } from '../http/json-body';

interface Waiter {
  bytes: number;
  admit(): void;
}

interface TenantState {
  inFlight: number;
  running: number;
  waiting: Waiter[];
  /** The bytes of the calls in `waiting`. */
  queued: number;
  /** Bytes the tenant may still send before it waits for its rate (negative: owed), as of `at` (ms). */
  credit: number;
  at: number;
  /** A timer that admits the first waiter once the credit is back, or forgets an idle tenant once it is whole. */
  wake?: NodeJS.Timeout;
}

/** How a tenant's bodies are paced: bytes a second (0: not paced) and the bytes it may send at once. */
export interface TenantRate {
  bytesPerSecond: number;
  burstBytes: number;
  /** A call that would wait longer than this for the rate (ms) is refused at once, with that wait as Retry-After. */
  maxWaitMs: number;
}

/**
 * How much of one tenant's model-call traffic is on its way through the bus at once: the bytes of
 * request bodies in flight, per tenant. A call that would go over the limit waits its turn (first
 * come, first served within the tenant) before anything of it is sent on, so one tenant sending
 * many large prompts queues behind itself, not in front of other tenants on the bus and in the
 * proxy. A call larger than the limit runs when nothing else of its tenant does. Past
 * `maxWaiting` waiting calls, the next is refused (RESOURCE_EXHAUSTED, retry after 1 s).
 *
 * And how fast: with a `rate`, a tenant's bodies take credit that comes back at `bytesPerSecond`, up
 * to `burstBytes`. A call goes on while the tenant has credit left (it may take more than is left,
 * and then owes it); one that finds the tenant owing waits until the debt and the calls waiting
 * before it are paid for, or is refused at once (RESOURCE_EXHAUSTED, Retry-After that wait) when
 * that would take over `maxWaitMs`. A
 * tenant whose prompts are blocked at once is answered in milliseconds, so bytes in flight alone
 * would let it send tens of megabytes a second through the gateway, the proxy and the prompt store.
 */
export class TenantGate {
  private readonly tenants = new Map<string, TenantState>();

  constructor(
    private readonly maxBytes: number,
    private readonly maxWaiting: number,
    private readonly rate: TenantRate = { bytesPerSecond: 0, burstBytes: 0, maxWaitMs: 0 },
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves with the release of the admitted call once it may go on. */
  acquire(tenant: string, bytes: number): Promise<() => void> {
    let state = this.tenants.get(tenant);
    if (!state) {
      state = { inFlight: 0, running: 0, waiting: [], queued: 0, credit: this.rate.burstBytes, at: this.now() };
      this.tenants.set(tenant, state);
    }
    const s = state;
    // With nothing waiting, a pending timer was only to forget the tenant: it is back.
    if (s.wake && s.waiting.length === 0) {
      clearTimeout(s.wake);
      s.wake = undefined;
    }
    const overRate = this.overRate(s);
    if (overRate) return Promise.reject(overRate);
    const release = once(() => {
      s.inFlight -= bytes;
      s.running--;
      this.admitWaiting(tenant, s);
    });
    if (s.waiting.length === 0 && this.fits(s, bytes)) {
      this.start(s, bytes);
      return Promise.resolve(release);
    }
    if (s.waiting.length >= this.maxWaiting) {
      return Promise.reject(
        new DomainError(
          ErrorCode.RESOURCE_EXHAUSTED,
          `${this.maxWaiting} model calls of this tenant are already waiting for the ones in flight; retry shortly`,
          [],
          1,
        ),
      );
    }
    return new Promise((resolve) => {
      s.waiting.push({ bytes, admit: () => resolve(release) });
      s.queued += bytes;
      this.wakeWhenPaid(tenant, s);
    });
  }

  /**
   * The refusal a call of this tenant would get now for the rate, if any: what the gateway answers
   * before taking in a body that `acquire` would refuse anyway (a tenant over its rate sends on, and
   * each megabyte buffered and parsed only to be refused costs every other tenant's requests).
   */
  refusal(tenant: string): DomainError | undefined {
    const s = this.tenants.get(tenant);
    return s ? this.overRate(s) : undefined;
  }

  /** Tenants the gate keeps state for (for tests and metrics). */
  get known(): number {
    return this.tenants.size;
  }

  /** Calls in flight and waiting of one tenant (for tests and metrics). */
  load(tenant: string): { running: number; waiting: number; bytes: number } {
    const s = this.tenants.get(tenant);
    return { running: s?.running ?? 0, waiting: s?.waiting.length ?? 0, bytes: s?.inFlight ?? 0 };
  }

  /** A call that would wait over `maxWaitMs` for the rate (what the tenant owes, and what the calls queued before it will owe) is refused. */
  private overRate(s: TenantState): DomainError | undefined {
    this.refill(s);
    const owedMs = this.owedMs(s, s.queued);
    if (owedMs <= this.rate.maxWaitMs) return undefined;
    return new DomainError(
      ErrorCode.RESOURCE_EXHAUSTED,
      `this tenant sent more than ${this.rate.bytesPerSecond} bytes a second of model-call bodies; retry later`,
      [],
      Math.ceil(owedMs / 1000),
    );
  }

  private fits(s: TenantState, bytes: number): boolean {
    return (s.running === 0 || s.inFlight + bytes <= this.maxBytes) && this.owedMs(s) === 0;
  }

  private start(s: TenantState, bytes: number): void {
    s.inFlight += bytes;
    s.running++;
    if (this.rate.bytesPerSecond > 0) s.credit -= bytes;
  }

  private refill(s: TenantState): void {
    const now = this.now();
    if (this.rate.bytesPerSecond > 0)
      s.credit = Math.min(this.rate.burstBytes, s.credit + ((now - s.at) / 1000) * this.rate.bytesPerSecond);
    s.at = now;
  }

  /** How long until the tenant owes nothing (ms), with `more` bytes taken besides: 0 with credit left for them. */
  private owedMs(s: TenantState, more = 0): number {
    const owed = more - s.credit;
    return owed <= 0 || this.rate.bytesPerSecond <= 0 ? 0 : (owed / this.rate.bytesPerSecond) * 1000;
  }

  /** A waiter held up by the rate alone is admitted when the debt is paid (no call ending may do it). */
  private wakeWhenPaid(tenant: string, s: TenantState): void {
    const owed = this.owedMs(s);
    if (owed === 0 || s.wake) return;
    s.wake = setTimeout(() => {
      s.wake = undefined;
      this.admitWaiting(tenant, s);
    }, Math.ceil(owed));
    s.wake.unref();
  }

  /** An idle tenant is forgotten when its credit is whole again, as a new one's would be (sooner would hand it a fresh burst). */
  private forgetWhenWhole(tenant: string, s: TenantState): void {
    if (this.rate.bytesPerSecond <= 0 || s.credit >= this.rate.burstBytes) {
      this.tenants.delete(tenant);
      return;
    }
    if (s.wake) return;
    s.wake = setTimeout(
      () => {
        s.wake = undefined;
        this.refill(s);
        if (s.running === 0 && s.waiting.length === 0) this.forgetWhenWhole(tenant, s);
      },
      Math.ceil(((this.rate.burstBytes - s.credit) / this.rate.bytesPerSecond) * 1000),
    );
    s.wake.unref();
  }

  private admitWaiting(tenant: string, s: TenantState): void {
    this.refill(s);
    while (s.waiting.length > 0 && this.fits(s, s.waiting[0].bytes)) {
      const next = s.waiting.shift()!;
      s.queued -= next.bytes;
      this.start(s, next.bytes);
      next.admit();
    }
    if (s.waiting.length > 0) this.wakeWhenPaid(tenant, s);
    else if (s.running === 0) this.forgetWhenWhole(tenant, s);
  }
}

/**
 * The bytes a call counts for: its Content-Length; without one (a chunked body), the bytes the body
 * parser read; none for a call with no body (the parser is not run for it).
 */
function bodyBytes(req: FastifyRequest): number {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > 0) return declared;
  return bodyBytesOf(req);
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}

/** The gateway's one TenantGate (a provider of its module). */
export const tenantGateProvider = {
  provide: TenantGate,
  useFactory: (config: GatewayConfig) =>
    new TenantGate(config.MODEL_CALL_TENANT_BYTES, config.MODEL_CALL_TENANT_QUEUE, {
      bytesPerSecond: config.MODEL_CALL_TENANT_BYTES_PER_SECOND,
      burstBytes: config.MODEL_CALL_TENANT_BURST_BYTES,
      maxWaitMs: 3000,
    }),
  inject: [GATEWAY_CONFIG],
};

/** The gateway's TenantGate, as an interceptor on the model-call routes (after authentication). */
@Injectable()
export class TenantGateInterceptor implements NestInterceptor {
  constructor(@Inject(TenantGate) private readonly gate: TenantGate) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    const tenant = req.user?.tenant;
    if (!tenant) return next.handle();
    const bytes = bodyBytes(req);
    return defer(() => from(this.gate.acquire(tenant, bytes))).pipe(
      switchMap((release) => {
        // A client that left while its call waited is not called for (and gets no answer).
        if (req.raw.socket?.destroyed) {
          release();
          return of(undefined);
        }
        return next.handle().pipe(finalize(release));
      }),
    );
  }
}
