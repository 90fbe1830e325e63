import { DomainError } from '@bastion/contracts';

/** Where a page starts: after (or, going back, before) this row in (createdAt desc, id desc) order. */
export interface CursorKey {
  createdAt: Date;
  id: string;
}

export interface Cursor extends CursorKey {
  direction: 'next' | 'prev';
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.direction === 'next' ? 'n' : 'p', c.createdAt.toISOString(), c.id])).toString(
    'base64url',
  );
}

export function decodeCursor(value: string): Cursor {
  try {
    const [d, at, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as [string, string, string];
    const createdAt = new Date(at);
    if ((d !== 'n' && d !== 'p') || Number.isNaN(createdAt.getTime()) || typeof id !== 'string')
      throw new Error('bad cursor');
    return { direction: d === 'n' ? 'next' : 'prev', createdAt, id };
  } catch {
    throw DomainError.invalid('cursor is not one this API issued', [
      { loc: ['query', 'cursor'], msg: 'invalid cursor', type: 'value_error' },
    ]);
  }
}

/**
 * Cuts one page out of rows fetched with `limit + 1` in the cursor's direction (newest first when
 * going forward, oldest first when going back) and makes the cursors to the pages around it.
 */
export function paginate<T extends CursorKey>(
  rows: T[],
  limit: number,
  cursor: Cursor | undefined,
): { items: T[]; next: string | null; prev: string | null } {
  const goingBack = cursor?.direction === 'prev';
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  const items = goingBack ? page.reverse() : page;
  const first = items[0];
  const last = items[items.length - 1];
  const hasNext = goingBack ? cursor !== undefined : more;
  const hasPrev = goingBack ? more : cursor !== undefined;
  return {
    items,
    next: hasNext && last ? encodeCursor({ direction: 'next', createdAt: last.createdAt, id: last.id }) : null,
    prev: hasPrev && first ? encodeCursor({ direction: 'prev', createdAt: first.createdAt, id: first.id }) : null,
  };
}

/** The Prisma `where` and `orderBy` that fetch rows for a page after `cursor`. */
export function pageWindow(cursor: Cursor | undefined): {
  where: object;
  orderBy: { createdAt: 'asc' | 'desc' }[] | object[];
} {
  if (!cursor) return { where: {}, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] };
  const { createdAt, id } = cursor;
  if (cursor.direction === 'next') {
    return {
      where: { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    };
  }
  return {
    where: { OR: [{ createdAt: { gt: createdAt } }, { createdAt, id: { gt: id } }] },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  };
}
