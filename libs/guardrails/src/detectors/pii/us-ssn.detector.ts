import { standsAlone } from '../../engine/text-boundaries';
import type { Detector } from '../detector';

/**
 * US Social Security numbers written AAA-GG-SSSS (or with spaces), without the ranges the SSA
 * never issues: area 000, 666 or 900-999, group 00, serial 0000.
 */
export const usSsn: Detector<'us-ssn'> = {
  id: 'us-ssn',
  name: 'US Social Security number',
  description: 'US Social Security numbers such as 123-45-6789 (never-issued ranges excluded).',
  pattern: '\\d{3}-\\d{2}-\\d{4}|\\d{3} \\d{2} \\d{4}',
  confirm(value, text, start) {
    if (!standsAlone(text, start, start + value.length, '- ')) return false;
    const area = value.slice(0, 3);
    return (
      area !== '000' && area !== '666' && area[0] !== '9' && value.slice(4, 6) !== '00' && value.slice(7) !== '0000'
    );
  },
};
