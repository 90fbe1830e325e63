import { AllowlistSyntaxError, parseAllowlist } from './allowlist';

describe('parseAllowlist', () => {
  it('is empty for an unset or blank variable, and ignores empty entries', () => {
    expect(parseAllowlist(undefined).isEmpty).toBe(true);
    expect(parseAllowlist('').isEmpty).toBe(true);
    expect(parseAllowlist(' , ,').isEmpty).toBe(true);
    expect(parseAllowlist('localhost,').entries).toHaveLength(1);
  });

  it('matches host names exactly and case-insensitively, on any port unless one is given', () => {
    const list = parseAllowlist(' LocalHost , models.internal:8443, ollama.svc.cluster.local. ');
    expect(list.allowsHost('localhost', 80)).toBe(true);
    expect(list.allowsHost('LOCALHOST.', 1234)).toBe(true);
    expect(list.allowsHost('models.internal', 8443)).toBe(true);
    expect(list.allowsHost('models.internal', 443)).toBe(false);
    expect(list.allowsHost('ollama.svc.cluster.local', 11434)).toBe(true);
    expect(list.allowsHost('sub.localhost', 80)).toBe(false);
    expect(list.allowsAddress('127.0.0.1', 80)).toBe(false);
  });

  it('matches addresses, CIDRs and ip:port entries', () => {
    const list = parseAllowlist('127.0.0.1, 10.0.0.0/8, 192.168.1.5:8080, [::1]:9000, fd00::/8');
    expect(list.allowsAddress('127.0.0.1', 1)).toBe(true);
    expect(list.allowsAddress('127.0.0.2', 1)).toBe(false);
    expect(list.allowsAddress('10.200.3.4', 443)).toBe(true);
    expect(list.allowsAddress('11.0.0.1', 443)).toBe(false);
    expect(list.allowsAddress('192.168.1.5', 8080)).toBe(true);
    expect(list.allowsAddress('192.168.1.5', 8081)).toBe(false);
    expect(list.allowsAddress('::1', 9000)).toBe(true);
    expect(list.allowsAddress('::1', 9001)).toBe(false);
    expect(list.allowsAddress('fd12::1', 80)).toBe(true);
    expect(list.allowsHost('127.0.0.1', 80)).toBe(false);
  });

  it('treats IPv4-mapped IPv6 like the IPv4 address, in entries and in addresses', () => {
    expect(parseAllowlist('127.0.0.1').allowsAddress('::ffff:127.0.0.1', 80)).toBe(true);
    expect(parseAllowlist('::ffff:10.0.0.0/104').allowsAddress('10.1.1.1', 80)).toBe(true);
  });

  it.each([
    ['local host', 'not a host name'],
    ['exa_mple..com', 'not a host name'],
    ['-bad.example', 'not a host name'],
    ['localhost:0', 'port must be a number from 1 to 65535'],
    ['localhost:70000', 'port must be a number from 1 to 65535'],
    ['localhost:http', 'port must be a number from 1 to 65535'],
    ['10.0.0.0/33', 'IPv4 prefix length is at most 32'],
    ['fd00::/129', 'IPv6 prefix length is at most 128'],
    ['10.0.0.0/', 'prefix length after "/" must be a number'],
    ['localhost/8', 'a CIDR needs'],
    ['10.1/16', 'a CIDR needs'],
    ['0x7f000001', 'four decimal numbers'],
    ['127.1', 'four decimal numbers'],
    ['[localhost]:80', 'brackets must hold an IPv6 address'],
    ['a:b:c', 'write an IPv6 address with a port as [address]:port'],
  ])('refuses %s with a clear message', (entry, why) => {
    expect(() => parseAllowlist(`localhost, ${entry}`)).toThrow(AllowlistSyntaxError);
    expect(() => parseAllowlist(entry)).toThrow(`OUTBOUND_ALLOWLIST entry "${entry}": `);
    expect(() => parseAllowlist(entry)).toThrow(why);
  });
});
