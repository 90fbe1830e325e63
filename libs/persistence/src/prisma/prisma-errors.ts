import { DomainError } from '@bastion/contracts';

interface PrismaKnownError {
  code: string;
  meta?: Record<string, unknown>;
}

function isPrismaKnownError(err: unknown): err is PrismaKnownError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as PrismaKnownError).code === 'string' &&
    /^P\d{4}$/.test((err as PrismaKnownError).code)
  );
}

/**
 * The one place Prisma's error codes become domain errors. `messages` lets a repository word them
 * as its API does; errors it does not know are rethrown untouched.
 */
export function translatePrismaError(
  err: unknown,
  messages: { alreadyExists?: string; notFound?: string } = {},
): never {
  if (isPrismaKnownError(err)) {
    if (err.code === 'P2002') throw DomainError.alreadyExists(messages.alreadyExists ?? 'Object already exists');
    if (err.code === 'P2025') throw DomainError.notFound(messages.notFound ?? 'Object does not exist');
  }
  throw err;
}

/** P2025: the record an update or delete needed does not exist. */
export function isPrismaNotFound(err: unknown): boolean {
  return isPrismaKnownError(err) && err.code === 'P2025';
}

/** Prisma's codes for a database it cannot reach or whose connections it lost. */
const UNREACHABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** The driver adapter's error kinds for the same. */
const UNREACHABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
]);
/** Postgres SQLSTATEs of a server going away or not yet accepting work (class 08, 57P01-57P03). */
const UNREACHABLE_SQLSTATES = /^(08\d{3}|57P0[123])$/;
const UNREACHABLE_MESSAGES =
  /can't reach database server|connection terminated|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|connection timeout|timeout exceeded when trying to connect|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery)|server has closed the connection|Client has encountered a connection error/i;

/**
 * Whether an error (from Prisma, its driver adapter or `pg`) means the database is unreachable
 * rather than that the query was wrong: such a failure is an outage (UNAVAILABLE, retry later), not
 * a bug (INTERNAL).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const e = err as {
    code?: unknown;
    message?: unknown;
    kind?: unknown;
    meta?: { driverAdapterError?: unknown };
    cause?: unknown;
    name?: unknown;
  };
  if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || UNREACHABLE_SQLSTATES.test(e.code))) return true;
  if (typeof e.kind === 'string' && UNREACHABLE_KINDS.has(e.kind)) return true;
  if (e.name === 'PrismaClientInitializationError') return true;
  if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.test(e.message)) return true;
  return isDatabaseUnavailable(e.meta?.driverAdapterError, depth + 1) || isDatabaseUnavailable(e.cause, depth + 1);
}
