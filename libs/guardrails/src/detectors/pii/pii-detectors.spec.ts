import { compileScanner } from '../../scanners/compile-scanner';
import type { PiiDetectorId } from './pii-detectors';

/** The texts one PII detector finds in `text`. */
function found(detector: PiiDetectorId, text: string): string[] {
  const scanner = compileScanner({ type: 'pii', detectors: [detector] }, { includeText: true });
  return scanner.scan(text).data.matches.map((m) => m[3] ?? '');
}

describe('email', () => {
  it.each([
    ['write to jane.doe@example.com today', 'jane.doe@example.com'],
    ['<j+tag_1@mail.sub.example.co.uk>', 'j+tag_1@mail.sub.example.co.uk'],
    ['mailto:ops@bastion.io.', 'ops@bastion.io'],
    ['see...jane@x.io', 'jane@x.io'],
  ])('finds it in %p', (text, expected) => {
    expect(found('email', text)).toEqual([expected]);
  });

  it.each(['user@localhost', 'npm i react@18.2.0', 'ping @mention', 'a@b.c', 'name@domain', 'x@y.com123'])(
    'ignores %p',
    (text) => expect(found('email', text)).toEqual([]),
  );
});

describe('phone', () => {
  it.each([
    ['call +44 20 7946 0958 now', '+44 20 7946 0958'],
    ['US: +1 (555) 234-5678.', '+1 (555) 234-5678'],
    ['mobile +4915112345678', '+4915112345678'],
    ['office (555) 234-5678', '(555) 234-5678'],
    ['555.234.5678', '555.234.5678'],
    ['fax: 555-234-5678', '555-234-5678'],
  ])('finds it in %p', (text, expected) => {
    expect(found('phone', text)).toEqual([expected]);
  });

  it.each([
    'order 1234567890 shipped',
    'call 123-456-7890', // no North American area code starts with 1
    'on 2023-10-15 at 12:30',
    'SSN 123-45-6789',
    'score +1 23',
    'ticket 555-234-56789',
    'x(555) 234-5678)',
    'pi is 3.14159265358979',
    'card 4111 1111 1111 1111',
  ])('ignores %p', (text) => expect(found('phone', text)).toEqual([]));
});

describe('payment-card', () => {
  it.each([
    ['Visa 4111 1111 1111 1111 exp 12/27', '4111 1111 1111 1111'],
    ['4111-1111-1111-1111', '4111-1111-1111-1111'],
    ['card=4111111111111111;', '4111111111111111'],
    ['Amex 3782 822463 10005', '3782 822463 10005'],
    ['Amex 378282246310005', '378282246310005'],
    ['MC 5555555555554444', '5555555555554444'],
    ['MC 2-series 2223 0031 2200 3222', '2223 0031 2200 3222'],
    ['Discover 6011111111111117', '6011111111111117'],
    ['Diners 30569309025904', '30569309025904'],
    ['Visa 13 4222222222222', '4222222222222'],
    ['card 4111 1111 1111 1111 2024', '4111 1111 1111 1111'],
  ])('finds it in %p', (text, expected) => {
    expect(found('payment-card', text)).toEqual([expected]);
  });

  it('finds two cards written one after the other', () => {
    expect(found('payment-card', '4111111111111111 5555555555554444')).toEqual([
      '4111111111111111',
      '5555555555554444',
    ]);
  });

  it.each([
    '4111 1111 1111 1112', // Luhn fails
    'order 7004045254698951', // a 16-digit order id that fails Luhn
    'order 4776496696037597',
    'ref 1234567812345670', // passes Luhn, but no card issuer uses prefix 1
    '0000 0000 0000 0000',
    'ID4111111111111111',
    '41111111111111111111', // 20 digits: part of a longer number
    '3.4111111111111111',
    '12 34 56 78 90 12 34 56', // a row of small numbers
    '4111 11 11 1111 1111',
  ])('ignores %p', (text) => expect(found('payment-card', text)).toEqual([]));
});

describe('iban', () => {
  it.each([
    ['IBAN DE89 3704 0044 0532 0130 00 AND MORE', 'DE89 3704 0044 0532 0130 00'],
    ['GB82WEST12345698765432', 'GB82WEST12345698765432'],
    ['to GB82 WEST 1234 5698 7654 32.', 'GB82 WEST 1234 5698 7654 32'],
    ['FR14 2004 1010 0505 0001 3M02 606', 'FR14 2004 1010 0505 0001 3M02 606'],
    ['NO9386011117947', 'NO9386011117947'],
  ])('finds it in %p', (text, expected) => {
    expect(found('iban', text)).toEqual([expected]);
  });

  it.each([
    'DE89 3704 0044 0532 0130 01', // wrong check digits
    'GB82WEST12345698765433',
    'XX89370400440532013000', // no such country
    'DE8937040044053201', // too short for Germany
    'DE8937040044053201300099', // longer than a German IBAN
    'ADE89370400440532013000',
  ])('ignores %p', (text) => expect(found('iban', text)).toEqual([]));
});

describe('us-ssn', () => {
  it.each([
    ['SSN 123-45-6789.', '123-45-6789'],
    ['ssn: 123 45 6789', '123 45 6789'],
    ['078-05-1120', '078-05-1120'],
    ['665-12-3456', '665-12-3456'],
  ])('finds it in %p', (text, expected) => {
    expect(found('us-ssn', text)).toEqual([expected]);
  });

  it.each([
    '000-12-3456',
    '666-12-3456',
    '912-34-5678',
    '999-99-9999',
    '123-00-4567',
    '123-45-0000',
    '123-45-67890',
    '1123-45-6789',
    '123-45-6789-1',
    'call 555-234-5678',
    '123-456-789',
  ])('ignores %p', (text) => expect(found('us-ssn', text)).toEqual([]));
});

describe('ip-address', () => {
  it.each([
    ['from 192.168.1.10 today', '192.168.1.10'],
    ['dns 8.8.8.8', '8.8.8.8'],
    ['host 10.0.0.1.', '10.0.0.1'],
    ['server 10.1.2.3', '10.1.2.3'],
    ['v6 2001:db8::8a2e:370:7334', '2001:db8::8a2e:370:7334'],
    ['2001:0db8:85a3:0000:0000:8a2e:0370:7334', '2001:0db8:85a3:0000:0000:8a2e:0370:7334'],
    ['mapped ::ffff:192.0.2.128', '::ffff:192.0.2.128'],
    ['link fe80::1ff:fe23:4567:890a%eth0', 'fe80::1ff:fe23:4567:890a'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['at 2001:db8::1: it answered', '2001:db8::1'],
  ])('finds it in %p', (text, expected) => {
    expect(found('ip-address', text)).toEqual([expected]);
  });

  it.each([
    'release v1.2.3.4',
    'version 1.2.3.4',
    'build: 10.0.0.1',
    'semver 1.2.3.4.5',
    '999.1.1.1',
    '01.02.03.04',
    'pkg 1.2.3',
    'std::vector<int>',
    'a[1::2]',
    'at 12:30:45',
    'mac 00:1A:2B:3C:4D:5E',
    'loopback ::1',
    '1:2:3:4:5:6:7:8:9',
  ])('ignores %p', (text) => expect(found('ip-address', text)).toEqual([]));
});

describe('the pii package', () => {
  it('runs every detector unless some are named, each match labelled with its detector', () => {
    const text = 'jane@example.com, 4111 1111 1111 1111, 10.0.0.1';
    expect(compileScanner({ type: 'pii' }).scan(text).data.matches).toEqual([
      [0, 16, 'email'],
      [18, 37, 'payment-card'],
      [39, 47, 'ip-address'],
    ]);
    expect(compileScanner({ type: 'pii', detectors: ['ip-address'] }).scan(text).data.matches).toEqual([
      [39, 47, 'ip-address'],
    ]);
  });
});
