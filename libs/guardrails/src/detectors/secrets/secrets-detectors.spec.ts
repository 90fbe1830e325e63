import { cpuStopwatch } from '@bastion/testing';
import { compileScanner } from '../../scanners/compile-scanner';
import type { SecretsDetectorId } from './secrets-detectors';

// A generous time budget: these tests are about what is found (and CPU time), not how busy the machine is.
function found(detector: SecretsDetectorId, text: string): string[] {
  const scanner = compileScanner(
    { type: 'secrets', detectors: [detector] },
    { includeText: true, timeBudgetMs: 60_000 },
  );
  return scanner.scan(text).data.matches.map((m) => m[3] ?? '');
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const JWT = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: '1234567890' })}.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`;
const GHP = `ghp_${'a1B2c3D4e5'.repeat(3)}F6g7H8`;
const PEM_BODY =
  'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==';

describe('aws-access-key', () => {
  it.each([
    ['aws_access_key_id = AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['"ASIAY34FZKBOKMUTVV7A"', 'ASIAY34FZKBOKMUTVV7A'],
  ])('finds it in %p', (text, expected) => expect(found('aws-access-key', text)).toEqual([expected]));

  it.each([
    'AKIAIOSFODNN7EXAMPL',
    'AKIAIOSFODNN7EXAMPLEX',
    'XAKIAIOSFODNN7EXAMPLE',
    'akiaiosfodnn7example',
    'AKIDIOSFODNN7EXAMPLE',
  ])('ignores %p', (text) => expect(found('aws-access-key', text)).toEqual([]));
});

describe('github-token', () => {
  it.each([
    [`token ${GHP}`, GHP],
    [`gho_${'Z9'.repeat(18)}`, `gho_${'Z9'.repeat(18)}`],
    [`GH_TOKEN=ghs_${'x1'.repeat(18)}`, `ghs_${'x1'.repeat(18)}`],
    [
      `github_pat_11ABCDEFG0${'a'.repeat(12)}_${'b9'.repeat(29)}c`,
      `github_pat_11ABCDEFG0${'a'.repeat(12)}_${'b9'.repeat(29)}c`,
    ],
  ])('finds it in %p', (text, expected) => expect(found('github-token', text)).toEqual([expected]));

  it.each(['ghp_short1234', `ghx_${'a1'.repeat(18)}`, `xghp_${'a1'.repeat(18)}`, 'github_pat_tooShort'])(
    'ignores %p',
    (text) => expect(found('github-token', text)).toEqual([]),
  );
});

describe('jwt', () => {
  it('finds a token whose header decodes to JSON with alg', () => {
    expect(found('jwt', `Authorization: Bearer ${JWT}`)).toEqual([JWT]);
    const unsigned = `${b64url({ alg: 'none' })}.${b64url({ sub: 'x' })}.`;
    expect(found('jwt', `token=${unsigned} end`)).toEqual([unsigned]);
  });

  it.each([
    [`${b64url({ typ: 'JWT' })}.${b64url({ sub: 'x' })}.sig`, 'a header without alg'],
    [`${b64url({ alg: 7 })}.${b64url({ sub: 'x' })}.sig`, 'alg not a string'],
    ['eyJhbGciOi.eyJzdWIi.sig', 'a header that is not JSON'],
    [`x${JWT}`, 'glued to a longer value'],
    ['eyJhbGciOiJIUzI1NiJ9 alone', 'one segment'],
  ])('ignores %s (%s)', (text) => expect(found('jwt', text)).toEqual([]));
});

describe('private-key', () => {
  it.each(['RSA PRIVATE KEY', 'PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'EC PRIVATE KEY'])(
    'finds a whole %s block',
    (label) => {
      const block = `-----BEGIN ${label}-----\n${PEM_BODY}\n-----END ${label}-----`;
      expect(found('private-key', `here:\n${block}\nthanks`)).toEqual([block]);
    },
  );

  it('finds a PGP private key block and a key pasted as a JSON string', () => {
    const pgp = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${PEM_BODY}\n-----END PGP PRIVATE KEY BLOCK-----`;
    expect(found('private-key', pgp)).toEqual([pgp]);
    const escaped = `-----BEGIN PRIVATE KEY-----\\n${PEM_BODY.replace('\n', '\\n')}\\n-----END PRIVATE KEY-----`;
    expect(found('private-key', `{"key": "${escaped}\\n"}`)).toEqual([escaped]);
  });

  it('takes a cut-off key up to where its base64 body stops', () => {
    const text = `-----BEGIN PRIVATE KEY-----\n${PEM_BODY}\n... (truncated), sorry`;
    expect(found('private-key', text)).toEqual([`-----BEGIN PRIVATE KEY-----\n${PEM_BODY}\n`]);
  });

  it('does not take one key block for two when each has its END', () => {
    const one = `-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----`;
    expect(found('private-key', `${one} and ${one}`)).toEqual([one, one]);
  });

  it.each([
    `-----BEGIN PUBLIC KEY-----\n${PEM_BODY}\n-----END PUBLIC KEY-----`,
    `-----BEGIN CERTIFICATE-----\n${PEM_BODY}\n-----END CERTIFICATE-----`,
    'a private key looks like -----BEGIN ... PRIVATE KEY-----',
  ])('ignores %p', (text) => expect(found('private-key', text)).toEqual([]));

  it('stays linear on many BEGIN lines without an END', () => {
    const text = '-----BEGIN PRIVATE KEY-----\nAAAA\n'.repeat(9_000);
    const cpuMs = cpuStopwatch();
    expect(found('private-key', text)).toHaveLength(9_000);
    expect(cpuMs()).toBeLessThan(2_000);
  });
});

describe('generic-api-key', () => {
  it.each([
    ['OPENAI_API_KEY=sk-proj-abc123DEF456ghi789JKL012mno', 'sk-proj-abc123DEF456ghi789JKL012mno'],
    ['sk-T3BlbkFJ1234567890abcdefghijklmnopqrstuv', 'sk-T3BlbkFJ1234567890abcdefghijklmnopqrstuv'],
    [`key: sk-ant-api03-${'Ab3_'.repeat(20)}xyzAA`, `sk-ant-api03-${'Ab3_'.repeat(20)}xyzAA`],
    ['slack xoxb-123456789012-1234567890123-AbCdEfGhIjKl', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKl'],
    ['maps AIzaSyD-1234567890abcdefghijklmnopqrstu', 'AIzaSyD-1234567890abcdefghijklmnopqrstu'],
    ['stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
    ['rk_live_51H8abcdEFGH1234ijklMNOP', 'rk_live_51H8abcdEFGH1234ijklMNOP'],
  ])('finds it in %p', (text, expected) => expect(found('generic-api-key', text)).toEqual([expected]));

  it.each([
    'pip install scikit-learn sk-learn',
    'OPENAI_API_KEY=sk-your-api-key-goes-here-please',
    'task-management-system-for-2024-teams',
    'xoxo-hugs-and-kisses-forever',
    'AIzaShort123',
    'sk_test_4eC39HqLyjWDarjtT1zdp7dc', // test keys are out of scope
  ])('ignores %p', (text) => expect(found('generic-api-key', text)).toEqual([]));
});
