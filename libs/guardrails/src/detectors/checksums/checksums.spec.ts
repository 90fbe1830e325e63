import { passesIbanChecksum } from './iban-checksum';
import { passesLuhn } from './luhn';

describe('passesLuhn', () => {
  it.each(['4111111111111111', '378282246310005', '79927398713', '0'])('accepts %s', (n) => {
    expect(passesLuhn(n)).toBe(true);
  });
  it.each(['4111111111111112', '79927398710', ''])('refuses %p', (n) => {
    expect(passesLuhn(n)).toBe(false);
  });
});

describe('passesIbanChecksum', () => {
  it.each(['DE89370400440532013000', 'GB82WEST12345698765432', 'FR1420041010050500013M02606', 'NO9386011117947'])(
    'accepts %s',
    (iban) => expect(passesIbanChecksum(iban)).toBe(true),
  );
  it.each(['DE89370400440532013001', 'DE98370400440532013000', 'GB82WEST12345698765433', 'de89370400440532013000'])(
    'refuses %s',
    (iban) => expect(passesIbanChecksum(iban)).toBe(false),
  );
});
