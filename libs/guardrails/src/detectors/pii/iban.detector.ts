import { standsAlone } from '../../engine/text-boundaries';
import { IBAN_LENGTHS, passesIbanChecksum } from '../checksums/iban-checksum';
import type { Detector } from '../detector';

/**
 * IBANs, compact or in groups of four, upper case. The country's registered length says where the
 * IBAN ends; the ISO 13616 mod-97 check digits must hold.
 */
export const iban: Detector<'iban'> = {
  id: 'iban',
  name: 'IBAN',
  description: 'International bank account numbers (country code, valid mod-97 check digits, registered length).',
  pattern: '[A-Z]{2}\\d{2}(?: ?[A-Z0-9]){11,30}',
  confirm(value, text, start) {
    const length = IBAN_LENGTHS[value.slice(0, 2)];
    if (length === undefined) return false;
    let compact = '';
    let end = 0;
    for (; end < value.length && compact.length < length; end++) {
      if (value[end] !== ' ') compact += value[end];
    }
    if (compact.length < length || !standsAlone(text, start, start + end)) return false;
    return passesIbanChecksum(compact) ? [[start, start + end]] : false;
  },
};
