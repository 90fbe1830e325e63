import { cpuStopwatch } from '@bastion/testing';
import { DomainError } from '@bastion/contracts';
import { SYSTEM_PROVIDERS } from '../system/system-catalog';
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

  it('counts an input a stage output reads, when a later stage sends to that output, as where the secrets go', () => {
    const workflow = {
      type: 'workflow',
      outputs: { content: '{{ content }}' },
      stages: [
        { type: 'request', method: 'GET', url: 'https://example.com', outputs: { hop: '{{ target }}' } },
        { type: 'request', method: 'GET', url: 'https://example.com', outputs: { next: '{{ hop + "/v1" }}' } },
        {
          type: 'request',
          method: 'POST',
          url: '{{ next }}/chat',
          headers: { authorization: 'Bearer {{ apiKey }}' },
          outputs: { content: '{{ response.body }}' },
        },
      ],
    };
    const stored = { ...current, template: workflow, inputs: { target: 'https://api.example' } };
    expect(() => checkSecretsRebound(stored, { inputs: { target: 'https://evil.example' } })).toThrow(/inputs.target/);
  });

  it('counts a secret read under url as where the other secrets go', () => {
    const t = { ...template, url: '{{ gateway }}/v1/chat' };
    const stored = { ...current, template: t, secrets: { ...current.secrets, gateway: 'https://gw.example' } };
    expect(() => checkSecretsRebound(stored, { secrets: { gateway: 'https://evil.example' } })).toThrow(
      /secrets.gateway.*missing: apiKey/,
    );
    // Sent again with every secret, it is taken.
    expect(() =>
      checkSecretsRebound(stored, { secrets: { gateway: 'https://new.example', apiKey: 'sk-again-000000000' } }),
    ).not.toThrow();
  });

  it("lets a signing block's own credentials rotate alone, and takes masks sent back as unchanged", () => {
    const bedrock = SYSTEM_PROVIDERS.find((p) => p.name === 'aws-bedrock')!.template;
    const secrets = {
      accessKeyId: 'AKIA0000000000000000',
      secretAccessKey: 's'.repeat(40),
      sessionToken: 't'.repeat(40),
    };
    const stored = { template: bedrock, authTemplate: null, inputs: { region: 'us-east-1', model: 'm' }, secrets };
    expect(() => checkSecretsRebound(stored, { secrets: { sessionToken: 'u'.repeat(40) } })).not.toThrow();
    // What a client was shown, sent back on a save that changes nothing else that binds.
    const shown = { accessKeyId: '****0000', secretAccessKey: '****ssss', sessionToken: '********' };
    expect(() => checkSecretsRebound(stored, { secrets: shown })).not.toThrow();
    // The region still binds them.
    expect(() => checkSecretsRebound(stored, { inputs: { region: 'eu-west-1' } })).toThrow(/inputs.region/);
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

  it('finds a name inside a template literal and past a "}}" in a string', () => {
    expect(identifiersIn('{{ `${apiKey}` }}')).toContain('apiKey');
    expect(identifiersIn("{{ '}}' + apiKey }}")).toContain('apiKey');
  });

  it('reads a string of unclosed placeholders in linear time', () => {
    // CPU time, not wall time: a busy machine stretches the wall time, not the work done.
    const cpuMs = cpuStopwatch();
    expect(identifiersIn('{'.repeat(200_000))).toEqual([]);
    expect(cpuMs()).toBeLessThan(1000);
  });
});

describe("a workflow's places rendered without secrets", () => {
  const stage = { type: 'request', method: 'GET', url: 'https://x.example' };
  it.each<[string, Record<string, unknown>, string[]]>([
    ["a stage's outputs", { ...stage, outputs: { t: '{{ apiKey }}' } }, ['stages', '0', 'outputs']],
    [
      "a retry's condition",
      { type: 'retry', attempts: 2, when: '{{ apiKey != "" }}', block: stage },
      ['stages', '0', 'when'],
    ],
    [
      "a retry's backoff",
      { type: 'retry', attempts: 2, backoff: '{{ apiKey.length }}', block: stage },
      ['stages', '0', 'backoff'],
    ],
    [
      "a retry block's outputs",
      { type: 'retry', attempts: 2, block: { ...stage, outputs: { t: '{{ `${apiKey}` }}' } } },
      ['stages', '0', 'block', 'outputs'],
    ],
  ])('refuses a secret read in %s, naming the place', (_, first, loc) => {
    let err: DomainError | undefined;
    try {
      checkOutputsReadNoSecret({ type: 'workflow', outputs: { content: 'x' }, stages: [first] }, ['apiKey']);
    } catch (e) {
      err = e as DomainError;
    }
    expect(err?.details[0]).toMatchObject({ loc: ['body', 'template', ...loc], type: 'template.secret_in_outputs' });
  });
});

describe('outputs that read a secret, spelled to hide it', () => {
  it.each(['{{ `${apiKey}` }}', "{{ '}}' + apiKey }}"])('refuses %s', (content) => {
    expect(() =>
      checkOutputsReadNoSecret({ type: 'request', url: 'https://x', outputs: { content } }, ['apiKey']),
    ).toThrow(/cannot read apiKey/);
  });
});
