import { DomainError } from '@bastion/contracts';
import { checkOutputsReadNoSecret, checkSecretsRebound, identifiersIn } from './secret-binding';

const template = {
  type: 'request',
  method: 'POST',
  url: '{{ baseUrl }}/v1/chat',
  headers: { Authorization: 'Bearer {{ apiKey }}' },
  json: '{{ { model: model } }}',
};
const current = {
  template,
  authTemplate: null,
  inputs: { baseUrl: 'https://api.example', model: 'm1' },
  secrets: { apiKey: 'sk-1234567890abcdefgh' },
};

function refusal(change: Parameters<typeof checkSecretsRebound>[1]): DomainError | undefined {
  try {
    checkSecretsRebound(current, change);
    return undefined;
  } catch (err) {
    return err as DomainError;
  }
}

describe('checkSecretsRebound', () => {
  it.each([
    ['a new baseUrl', { inputs: { baseUrl: 'https://attacker.example' } }, 'inputs.baseUrl'],
    ['a new template', { template: { ...template, url: 'https://attacker.example' } }, 'template'],
    ['a new auth template', { authTemplate: { type: 'request', url: 'https://attacker.example' } }, 'authTemplate'],
  ])('refuses %s without the secrets, naming the rule', (_, change, reason) => {
    const err = refusal(change);
    expect(err?.message).toContain(`changing ${reason}`);
    expect(err?.details[0]).toMatchObject({ loc: ['body', 'secrets'], type: 'secrets.rebind_required' });
  });

  it('counts an input read under url as where the secrets go', () => {
    const t = { ...template, url: 'https://{{ account }}.api.example/v1' };
    expect(() =>
      checkSecretsRebound(
        { ...current, template: t, inputs: { ...current.inputs, account: 'a' } },
        { inputs: { account: 'evil' } },
      ),
    ).toThrow(/inputs.account/);
  });

  it('takes the change with every secret sent again in clear', () => {
    expect(
      refusal({ inputs: { baseUrl: 'https://new.example' }, secrets: { apiKey: 'sk-new-value-000000' } }),
    ).toBeUndefined();
  });

  it('does not take the mask it showed as the secret sent again', () => {
    expect(refusal({ inputs: { baseUrl: 'https://new.example' }, secrets: { apiKey: '****efgh' } })?.message).toContain(
      'missing: apiKey',
    );
  });

  it('lets through changes that do not move the secrets', () => {
    expect(refusal({ inputs: { model: 'm2' } })).toBeUndefined();
    expect(refusal({ inputs: { baseUrl: 'https://api.example' } })).toBeUndefined();
    expect(refusal({ template })).toBeUndefined();
  });
});

describe('checkOutputsReadNoSecret', () => {
  it('refuses outputs that name a secret', () => {
    expect(() => checkOutputsReadNoSecret({ ...template, outputs: { content: '{{ apiKey }}' } }, ['apiKey'])).toThrow(
      /cannot read apiKey/,
    );
  });
  it('takes outputs that read the response', () => {
    expect(() =>
      checkOutputsReadNoSecret({ ...template, outputs: { content: '{{ response.json()?.apiKey }}' } }, ['apiKey']),
    ).not.toThrow();
  });
});

describe('identifiersIn', () => {
  it('finds the names an expression reads, not property names or strings', () => {
    expect(identifiersIn('{{ a.b }}-{{ c?.["d"] }} {{ "e" + f }}')).toEqual(['a', 'c', 'f']);
  });
});
