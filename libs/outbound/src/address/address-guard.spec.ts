import { AddressGuard } from './address-guard';
import { parseAllowlist } from './allowlist';

describe('AddressGuard', () => {
  const guard = new AddressGuard();

  it('lets public addresses through and explains refusals for literals and for names', () => {
    expect(guard.refusal({ host: 'api.openai.com', port: 443 }, '104.18.6.192')).toBeUndefined();
    expect(guard.refusal({ host: '10.0.0.1', port: 80 }, '10.0.0.1')?.message).toBe(
      'refused: 10.0.0.1 is a private address (set OUTBOUND_ALLOWLIST to allow it)',
    );
    expect(guard.refusal({ host: 'metadata.google.internal', port: 80 }, '169.254.169.254')?.message).toBe(
      'refused: metadata.google.internal is not an allowed destination (set OUTBOUND_ALLOWLIST to allow it)',
    );
  });

  it('keeps what a host name resolved to out of the message (clients see it) and writes it to the log', () => {
    const logged: Record<string, unknown>[] = [];
    const logging = new AddressGuard(undefined, { warn: (details) => logged.push(details) });
    const refusal = logging.refusal({ host: 'vault.internal', port: 8200 }, '10.2.3.4');
    expect(refusal?.kind).toBe('blocked_address');
    expect(refusal?.message).toBe(
      'refused: vault.internal is not an allowed destination (set OUTBOUND_ALLOWLIST to allow it)',
    );
    expect(refusal?.message).not.toMatch(/\d+\.\d+\.\d+\.\d+|private/);
    expect(logged).toEqual([{ host: 'vault.internal', port: 8200, address: '10.2.3.4', reason: 'a private address' }]);
  });

  it('names what an unusual spelling stands for', () => {
    expect(guard.refusal({ host: '::ffff:a9fe:a9fe', port: 80 }, '::ffff:a9fe:a9fe')?.message).toBe(
      'refused: ::ffff:a9fe:a9fe (169.254.169.254) is a link-local/metadata address (set OUTBOUND_ALLOWLIST to allow it)',
    );
  });

  it('refuses an answer that is not an IP address', () => {
    const refusal = guard.refusal({ host: 'odd.example', port: 80 }, 'not-an-ip');
    expect(refusal?.kind).toBe('blocked_address');
    expect(refusal?.message).not.toContain('not-an-ip');
  });

  it('follows the allowlist by host name (any address) or by address (any name)', () => {
    const allowing = new AddressGuard(parseAllowlist('ollama.internal:11434, 10.1.0.0/16'));
    expect(allowing.refusal({ host: 'ollama.internal', port: 11434 }, '10.9.9.9')).toBeUndefined();
    expect(allowing.refusal({ host: 'ollama.internal', port: 80 }, '10.9.9.9')?.kind).toBe('blocked_address');
    expect(allowing.refusal({ host: 'anything.internal', port: 80 }, '10.1.2.3')).toBeUndefined();
    expect(allowing.refusal({ host: 'anything.internal', port: 80 }, '127.0.0.1')?.kind).toBe('blocked_address');
  });
});
