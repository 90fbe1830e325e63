import { nonPublicReason } from './address-classification';

describe('nonPublicReason', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['fc00::1', 'a private (unique local) address'],
    ['fd12:3456::1', 'a private (unique local) address'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['169.254.169.254', 'a link-local/metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['100.64.0.1', 'a carrier-grade NAT (100.64.0.0/10) address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['192.0.2.1', 'a reserved/special-purpose address'],
    ['240.0.0.1', 'a reserved/special-purpose address'],
  ])('%s is %s', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['0:0:0:0:0:ffff:169.254.169.254', 'a link-local/metadata address'],
    ['::ffff:10.0.0.1', 'a private address'],
    ['64:ff9b::a9fe:a9fe', 'a link-local/metadata address'], // NAT64 of 169.254.169.254
    ['64:ff9b::127.0.0.1', 'a loopback address'],
  ])('judges %s by the IPv4 address it reaches (%s)', (address, reason) => {
    expect(nonPublicReason(address)).toBe(reason);
  });

  it.each([
    ['::7f00:1', 'IPv4-compatible ::127.0.0.1, deprecated'],
    ['2002:7f00:1::', '6to4'],
    ['2001::1', 'Teredo'],
    ['100::1', 'discard'],
    ['4000::1', 'outside 2000::/3'],
  ])('refuses the IPv6 special form %s (%s)', (address) => {
    expect(nonPublicReason(address)).toBe('a reserved/special-purpose address');
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('lets the public address %s through', (address) => {
    expect(nonPublicReason(address)).toBeUndefined();
  });
});
