import type { Detector } from '../detector';
import { standsAlone } from '../../engine/text-boundaries';

/** Parentheses, if any, open before they close and pair up: "(555) 123", not "555) 123". */
function balancedParentheses(value: string): boolean {
  let depth = 0;
  for (const ch of value) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
    if (depth > 1) return false;
  }
  return depth === 0;
}

/**
 * International numbers written with a leading "+" (8 to 15 digits, E.164), and North American
 * numbers written with separators, "(555) 123-4567" or "555.123.4567". A bare run of digits is not
 * taken for a phone number: order ids, amounts and timestamps look the same.
 */
export const phone: Detector<'phone'> = {
  id: 'phone',
  name: 'Phone number',
  description:
    'International phone numbers (+44 20 7946 0958) and North American numbers with separators ((555) 123-4567).',
  pattern: '\\+\\d(?:[ .()-]{0,2}\\d){7,14}|\\(?\\d{3}\\)?[ .-]?\\d{3}[ .-]\\d{4}',
  confirm(value, text, start) {
    const end = start + value.length;
    if (!balancedParentheses(value) || !standsAlone(text, start, end, '-.+')) return false;
    if (value.startsWith('+')) return true;
    // North American Numbering Plan: area code and exchange start with 2-9.
    const digits = value.replace(/\D/g, '');
    return /^[2-9]\d{2}[2-9]/.test(digits);
  },
};
