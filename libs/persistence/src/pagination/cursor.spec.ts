import { decodeCursor, encodeCursor, paginate, pageWindow } from './cursor';

const row = (i: number) => ({
  id: `id-${String(i).padStart(3, '0')}`,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
});
/** Newest first, as the API lists. */
const all = Array.from({ length: 7 }, (_, i) => row(7 - i));

/** Plays the database: applies pageWindow's rule to the rows in memory. */
function fetch(cursor: ReturnType<typeof decodeCursor> | undefined, limit: number) {
  const { orderBy } = pageWindow(cursor);
  const asc = JSON.stringify(orderBy).includes('asc');
  const sorted = [...all].sort((a, b) => (a.createdAt.getTime() - b.createdAt.getTime()) * (asc ? 1 : -1));
  const after = cursor
    ? sorted.filter((r) =>
        cursor.direction === 'next'
          ? r.createdAt < cursor.createdAt || (r.createdAt.getTime() === cursor.createdAt.getTime() && r.id < cursor.id)
          : r.createdAt > cursor.createdAt ||
            (r.createdAt.getTime() === cursor.createdAt.getTime() && r.id > cursor.id),
      )
    : sorted;
  return paginate(after.slice(0, limit + 1), limit, cursor);
}

describe('cursor pagination', () => {
  it('walks forward and back through every row exactly once', () => {
    const p1 = fetch(undefined, 3);
    expect(p1.items.map((r) => r.id)).toEqual(['id-007', 'id-006', 'id-005']);
    expect(p1.prev).toBeNull();
    const p2 = fetch(decodeCursor(p1.next!), 3);
    expect(p2.items.map((r) => r.id)).toEqual(['id-004', 'id-003', 'id-002']);
    const p3 = fetch(decodeCursor(p2.next!), 3);
    expect(p3.items.map((r) => r.id)).toEqual(['id-001']);
    expect(p3.next).toBeNull();
    const back = fetch(decodeCursor(p3.prev!), 3);
    expect(back.items.map((r) => r.id)).toEqual(['id-004', 'id-003', 'id-002']);
    const first = fetch(decodeCursor(back.prev!), 3);
    expect(first.items.map((r) => r.id)).toEqual(['id-007', 'id-006', 'id-005']);
    expect(first.prev).toBeNull();
    expect(first.next).not.toBeNull();
  });

  it('refuses a cursor it did not issue', () => {
    expect(() => decodeCursor('garbage')).toThrow('cursor is not one this API issued');
    expect(decodeCursor(encodeCursor({ direction: 'next', createdAt: new Date(0), id: 'x' }))).toEqual({
      direction: 'next',
      createdAt: new Date(0),
      id: 'x',
    });
  });
});
