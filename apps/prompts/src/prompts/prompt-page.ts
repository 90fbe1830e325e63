import type { Cursor } from '@bastion/persistence';
import type { Prisma } from '../generated/prisma/client';
import type { PromptFilter } from './prompt-filters';

/**
 * Prompts are listed newest first by when the proxy received them (`receivedAt`, then `id`), not by
 * when this service stored them: after a catch-up, records stored late still sit where they belong.
 * The platform's cursor carries the key under the name `createdAt`; here it holds `receivedAt`.
 */
export function promptPageQuery(
  tenant: string,
  filter: PromptFilter,
  cursor: Cursor | undefined,
): { where: Prisma.PromptWhereInput; orderBy: Prisma.PromptOrderByWithRelationInput[] } {
  const and: Prisma.PromptWhereInput[] = [{ tenant }];
  if (filter.projectId !== undefined) and.push({ projectId: filter.projectId });
  if (filter.outcomes?.length) and.push({ outcome: { in: filter.outcomes } });
  if (filter.after) and.push({ receivedAt: { gt: filter.after } });
  if (filter.before) and.push({ receivedAt: { lt: filter.before } });
  if (!cursor) return { where: { AND: and }, orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }] };
  const { createdAt: at, id } = cursor;
  if (cursor.direction === 'next') {
    and.push({ OR: [{ receivedAt: { lt: at } }, { receivedAt: at, id: { lt: id } }] });
    return { where: { AND: and }, orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }] };
  }
  and.push({ OR: [{ receivedAt: { gt: at } }, { receivedAt: at, id: { gt: id } }] });
  return { where: { AND: and }, orderBy: [{ receivedAt: 'asc' }, { id: 'asc' }] };
}
