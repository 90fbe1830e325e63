import type { Span } from '../../engine/span';
import { standsAlone } from '../../engine/text-boundaries';
import { passesLuhn } from '../checksums/luhn';
import type { Detector } from '../detector';

/** Issuer prefixes: Visa, Mastercard (51-55, 2221-2720), Amex, Diners, JCB, Discover, UnionPay. */
const ISSUER =
  /^(?:4|5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720|3[47]|30[0-5]|3[68]|35(?:2[89]|[3-8]\d)|6011|64[4-9]|65|62)/;

/** How card numbers are written: one block, 4-4-4-4(-3), 4-4-4-n, or Amex/Diners 4-6-5 / 4-6-4. */
function isCardGrouping(sizes: readonly number[]): boolean {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total < 13 || total > 19) return false;
  if (sizes.length === 1) return true;
  if (sizes.length === 3 && sizes[0] === 4 && sizes[1] === 6 && (sizes[2] === 4 || sizes[2] === 5)) return true;
  return sizes.slice(0, -1).every((s) => s === 4) && sizes[sizes.length - 1] <= 4;
}

type Group = { start: number; digits: string };

/** The last group of the longest card number starting at group `first`, or -1. */
function lastGroupOfCard(groups: readonly Group[], first: number): number {
  for (let last = Math.min(groups.length - 1, first + 4); last >= first; last--) {
    const run = groups.slice(first, last + 1);
    if (!isCardGrouping(run.map((g) => g.digits.length))) continue;
    const digits = run.map((g) => g.digits).join('');
    if (ISSUER.test(digits) && passesLuhn(digits)) return last;
  }
  return -1;
}

/**
 * Card numbers of 13 to 19 digits, bare or grouped with spaces or dashes, from a known issuer and
 * passing the Luhn check. The candidate is a whole run of digit groups ("4111 1111 1111 1111 2024"),
 * in which cards are sought at group boundaries, so a trailing year or a second card is not lost
 * and a card is never carved out of the middle of a longer number.
 */
export const paymentCard: Detector<'payment-card'> = {
  id: 'payment-card',
  name: 'Payment card number',
  description: 'Credit and debit card numbers (13-19 digits, Luhn-valid, known issuer prefix).',
  pattern: '\\d(?:[ -]?\\d){12,}',
  confirm(value, text, start) {
    if (!standsAlone(text, start, start + value.length, '.')) return false;
    const groups: Group[] = [];
    for (const m of value.matchAll(/\d+/g)) groups.push({ start: start + m.index, digits: m[0] });
    const found: Span[] = [];
    for (let i = 0; i < groups.length;) {
      const last = lastGroupOfCard(groups, i);
      if (last < 0) {
        i++;
        continue;
      }
      found.push([groups[i].start, groups[last].start + groups[last].digits.length]);
      i = last + 1;
    }
    return found;
  },
};
