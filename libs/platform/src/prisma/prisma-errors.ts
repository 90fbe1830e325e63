import { DomainError } from '@bastion/contracts';

interface PrismaKnownError {
  code: string;
  meta?: Record<string, unknown>;
}

function isPrismaKnownError(err: unknown): err is PrismaKnownError {
  return typeof err === 'object' && err !== null && typeof (err as PrismaKnownError).code === 'string' && /^P\d{4}$/.test((err as PrismaKnownError).code);
}

/**
 * The one place Prisma's error codes become domain errors. `messages` lets a repository word them
 * as its API does; errors it does not know are rethrown untouched.
 */
export function translatePrismaError(err: unknown, messages: { alreadyExists?: string; notFound?: string } = {}): never {
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
