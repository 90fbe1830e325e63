import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';

/**
 * Reconnect backoff: 250 ms doubling to 2 s, each delay with up to 50% random jitter so that every
 * replica of every service does not knock on a restarted NATS server at the same instant.
 */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(2000, 250 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.5 + random() * 0.5));
}

/**
 * Connection options every NATS connection of the platform uses: reconnect forever with backoff
 * and jitter, wait for a server that is not up yet at start, and notice a silent server within
 * ~30 s (pings every 10 s, three unanswered). `attempts` counts the reconnect attempts since the
 * last successful connection; `trackConnection` resets it.
 */
export function resilientOptions(): Partial<ConnectionOptions> & { attempts: { n: number } } {
  const attempts = { n: 0 };
  return {
    attempts,
    maxReconnectAttempts: -1,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
    maxPingOut: 3,
    reconnectDelayHandler: () => reconnectDelay(attempts.n++),
  };
}

interface Tracked {
  name: string;
  connected: boolean;
  downSince?: number;
}

/**
 * What the process knows about its NATS connections and its own lifecycle: readiness is 503 while
 * any connection is down or while the process drains; the RPC client fails fast while its
 * connection is down; the drain waits for in-flight handlers.
 */
class ProcessState {
  private readonly connections = new Map<NatsConnection, Tracked>();
  private inFlightCount = 0;
  private idleWaiters: Array<() => void> = [];
  /** Set once a stop signal arrived: readiness answers 503 and no new work is taken. */
  draining = false;

  /** Follows a connection's status events until it closes. */
  track(
    nc: NatsConnection,
    name: string,
    onChange?: (connected: boolean, downForMs: number) => void,
    attempts?: { n: number },
  ): void {
    const t: Tracked = { name, connected: !nc.isClosed() };
    this.connections.set(nc, t);
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' && t.connected) {
          t.connected = false;
          t.downSince = Date.now();
          onChange?.(false, 0);
        } else if (s.type === 'reconnect') {
          const downFor = t.downSince ? Date.now() - t.downSince : 0;
          t.connected = true;
          t.downSince = undefined;
          if (attempts) attempts.n = 0;
          onChange?.(true, downFor);
        }
      }
    })().catch(() => undefined);
    void nc.closed().then(() => this.connections.delete(nc));
  }

  isConnected(nc: NatsConnection): boolean {
    if (nc.isClosed()) return false;
    return this.connections.get(nc)?.connected ?? true;
  }

  /** Names of the tracked connections that are down. */
  down(): string[] {
    return [...this.connections.values()].filter((t) => !t.connected).map((t) => t.name);
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  begin(): void {
    this.inFlightCount++;
  }

  end(): void {
    this.inFlightCount = Math.max(0, this.inFlightCount - 1);
    if (this.inFlightCount === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Resolves true once nothing is in flight, false if `ms` passed first. */
  whenIdle(ms: number): Promise<boolean> {
    if (this.inFlightCount === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve(false);
      }, ms);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(done);
    });
  }
}

/** The process's one state (connections, in-flight work, draining). */
export const processState = new ProcessState();

/** The readiness check every service's /readyz runs on top of its own. */
export function lifecycleCheck(): Promise<void> {
  if (processState.draining) return Promise.reject(new Error('draining: the process is stopping'));
  const down = processState.down();
  if (down.length > 0) return Promise.reject(new Error(`NATS connection down: ${down.join(', ')}`));
  return Promise.resolve();
}
