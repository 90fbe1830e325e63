import {
  fastCheckFor,
  MessagesCommand,
  PrincipalDto,
  RegisterBootstrapRequest,
  RegisterSiteCommand,
} from '@bastion/contracts';
import type { ArgumentMetadata } from '@nestjs/common';
import { ValidationPipe } from '@nestjs/common';
import { payloadValidationPipe } from './validation';

/** class-validator alone, as the payload pipe runs it for a class with no fast check. */
const classValidator = new ValidationPipe({ transform: true, whitelist: true });
const meta = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

async function byClassValidator(cls: ArgumentMetadata['metatype'], raw: unknown): Promise<unknown> {
  try {
    return await classValidator.transform(structuredClone(raw), meta(cls));
  } catch {
    return 'refused';
  }
}

const principal = { sub: 'u-1', tenant: 'acme', roles: ['member'], project: 'p-1', credential: 'key' };
const command = {
  principal,
  provider: 'claude',
  rawBody: '{"model":"m","max_tokens":1,"messages":[]}',
  headers: { 'anthropic-version': '2023-06-01' },
  cancelSubject: 'proxy.cancel.0b3c7c8e-5f0b-4c4b-9a55-3c0f1f1e7a10',
};

/** Small deterministic random source, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

// No undefined: payloads arrive as JSON (a field is absent instead, which `mutate` also does).
const ODD_VALUES: unknown[] = [
  null,
  0,
  1.5,
  true,
  '',
  'x'.repeat(129),
  '😀'.repeat(65),
  [],
  ['admin'],
  ['admin', 'root'],
  {},
  { a: 1 },
  'proxy.cancel.*',
  'proxy.cancel.abc',
  -1,
  91,
  1e-7,
  '48.85',
  'node-1',
  { cluster_name: 'x' },
  'member',
  'jwt',
];

/** A copy of `value` with one field somewhere replaced, removed or added. */
function mutate(value: Record<string, unknown>, rnd: () => number): Record<string, unknown> {
  const copy = structuredClone(value);
  // Every object in the payload, at any depth, may be the one changed.
  const holders: Record<string, unknown>[] = [];
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') {
      holders.push(v as Record<string, unknown>);
      Object.values(v).forEach(collect);
    }
  };
  collect(copy);
  const target = holders[Math.floor(rnd() * holders.length)];
  const keys = [...Object.keys(target), 'extra', '__proto__', 'constructor', 'prototype', 'toString', 'valueOf'];
  const key = keys[Math.floor(rnd() * keys.length)];
  const action = rnd();
  if (action < 0.15) delete target[key];
  else {
    const value = ODD_VALUES[Math.floor(rnd() * ODD_VALUES.length)];
    // An own `__proto__` key, as JSON.parse makes one (an assignment would set the prototype).
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

const registration = {
  metadata: { name: 'node-1' },
  spec: { token: 'tok-1', passport: { cluster_name: 'edge-1', cluster_size: 3, latitude: 48.85, longitude: 2.35 } },
};
const registerCommand = {
  body: registration,
  passport: { cluster_name: 'edge-1', cluster_size: 3, latitude: 48.85, longitude: 2.35, extra: { a: [1, 'b'] } },
  sourceAddress: '10.0.0.1',
};

describe.each([
  ['PrincipalDto', PrincipalDto, principal, { ...principal, roles: [] }, 'roles'],
  ['MessagesCommand', MessagesCommand, command, { ...command, principal: { ...principal, roles: [] } }, 'roles'],
  [
    'RegisterBootstrapRequest',
    RegisterBootstrapRequest,
    registration,
    { ...registration, metadata: { name: 'Not_A_Label' } },
    'name',
  ],
  [
    'RegisterSiteCommand',
    RegisterSiteCommand,
    registerCommand,
    { ...registerCommand, passport: { x: 'a\u0000b' } },
    'passport',
  ],
] as const)('the fast check of %s', (_name, cls, valid, bad, field) => {
  const fast = fastCheckFor(cls)!;

  it('is declared, and answers what class-validator answers for a valid payload', async () => {
    expect(fast).toBeDefined();
    const mine = fast(structuredClone(valid));
    expect(mine).toBeInstanceOf(cls);
    expect(mine).toStrictEqual(await byClassValidator(cls, valid));
  });

  it('never accepts what class-validator refuses, nor answers differently from it (2,000 mutations)', async () => {
    const rnd = random(20261126);
    let acceptedByBoth = 0;
    for (let i = 0; i < 2000; i++) {
      let raw = mutate(valid as Record<string, unknown>, rnd);
      if (rnd() < 0.3) raw = mutate(raw, rnd);
      const mine = fast(structuredClone(raw));
      if (mine === undefined) continue;
      const theirs = await byClassValidator(cls, raw);
      expect({ raw, answer: theirs }).toStrictEqual({ raw, answer: mine });
      acceptedByBoth++;
    }
    // The mutations are not all refusals: some keep the payload valid (an extra field, an optional one gone).
    expect(acceptedByBoth).toBeGreaterThan(100);
  });

  it('leaves a refusal, and its message, to class-validator in the payload pipe', async () => {
    expect(fast(bad)).toBeUndefined();
    await expect(payloadValidationPipe().transform(bad, meta(cls))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining(field),
    });
  });
});
