import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { PlatformConfig } from '@bastion/platform';
import { BUS_USERS, type BusUser, inboxPrefix } from './bus-permissions';
import { processState, resilientOptions } from './connection-state';

/** Injection token of the process's own NATS connection (JetStream, RPC client). */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

/** Where and as whom a process connects to NATS. */
export interface NatsLogin {
  url: string;
  user: string;
  password: string;
  /** Refuse a server that accepts anonymous clients: it would enforce none of the bus permissions (production). */
  requireAuthentication?: boolean;
}

/** The password of a bus user when NATS_PASSWORD is unset: public, so production refuses it. */
export function devNatsPassword(user: string): string {
  return `dev-only-nats-${user}`;
}

/** Every bus user's development password: what a local nats-server started for development or tests knows. */
export function devNatsPasswords(): Record<BusUser, string> {
  return Object.fromEntries(BUS_USERS.map((u) => [u, devNatsPassword(u)])) as Record<BusUser, string>;
}

/**
 * How a service connects: as the bus user named after it, with NATS_PASSWORD (or, outside
 * production, its development password, which `pnpm start`, docker compose and the dev overlay
 * give nats-server too).
 */
export function natsLogin(
  config: Pick<PlatformConfig, 'NATS_URL' | 'NATS_PASSWORD' | 'NODE_ENV'>,
  user: BusUser,
): NatsLogin {
  if (config.NODE_ENV === 'production' && (!config.NATS_PASSWORD || config.NATS_PASSWORD === devNatsPassword(user))) {
    throw new Error(`NATS_PASSWORD must be set in production (the password of NATS user "${user}"; deploy/README.md)`);
  }
  return {
    url: config.NATS_URL,
    user,
    password: config.NATS_PASSWORD || devNatsPassword(user),
    requireAuthentication: config.NODE_ENV === 'production',
  };
}

/** Connection options of a login: its credentials and its own reply subjects (`_INBOX.<user>`). */
export function loginOptions(login: NatsLogin): { servers: string[]; user: string; pass: string; inboxPrefix: string } {
  return {
    servers: login.url.split(','),
    user: login.user,
    pass: login.password,
    inboxPrefix: inboxPrefix(login.user),
  };
}

/**
 * The process's own connection: reconnects forever with backoff and jitter, and is tracked, so
 * readiness is 503 and RPC calls fail fast while it is down. An outage is logged twice (lost, back),
 * not per request. A permission the server refuses is logged: it means a role in bus-permissions.ts
 * lacks something the code does.
 */
export async function connectNats(
  login: NatsLogin,
  options: { name?: string; logger?: Logger } = {},
): Promise<NatsConnection> {
  const { name = login.user, logger } = options;
  const { attempts, ...resilient } = resilientOptions();
  // noAsyncTraces: otherwise every request builds an Error (a stack trace) up front in case it
  // fails, which profiles showed at 3-4% of the gateway's and the proxy's CPU.
  const nc = await connect({ ...loginOptions(login), name, ...resilient, noAsyncTraces: true });
  if (!nc.info?.auth_required) {
    if (login.requireAuthentication) {
      await nc.close();
      throw new Error(
        `NATS at ${login.url} accepts anonymous clients: production needs its users and permissions (deploy/nats/auth.conf)`,
      );
    }
    logger?.warn({ connection: name }, 'NATS accepts anonymous clients: the bus permissions are not enforced');
  }
  processState.track(
    nc,
    name,
    (connected, downForMs) => {
      if (connected) logger?.warn({ connection: name, downForMs }, 'NATS connection back');
      else logger?.error({ connection: name }, 'NATS connection lost; reconnecting');
    },
    attempts,
  );
  if (logger) void logPermissionErrors(nc, name, logger);
  return nc;
}

/** Logs each permission violation the server reports on this connection. */
export async function logPermissionErrors(nc: NatsConnection, name: string, logger: Logger): Promise<void> {
  for await (const s of nc.status()) {
    if (s.type === 'error' && /permission/i.test(s.error.message)) {
      logger.error({ connection: name, err: s.error.message }, 'NATS refused a permission');
    }
  }
}
