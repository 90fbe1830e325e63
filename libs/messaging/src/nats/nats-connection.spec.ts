import { devNatsPassword, loginOptions, natsLogin } from './nats-connection';

describe('natsLogin', () => {
  const config = (NODE_ENV: string, NATS_PASSWORD: string) => ({
    NATS_URL: 'nats://a:4222,nats://b:4222',
    NODE_ENV,
    NATS_PASSWORD,
  });

  it('logs in as the service, with its development password when none is set outside production', () => {
    expect(natsLogin(config('development', ''), 'prompts')).toEqual({
      url: 'nats://a:4222,nats://b:4222',
      user: 'prompts',
      password: 'dev-only-nats-prompts',
      requireAuthentication: false,
    });
    expect(natsLogin(config('development', 's3cret'), 'prompts').password).toBe('s3cret');
  });

  it('refuses production without a password, or with the public development one', () => {
    expect(() => natsLogin(config('production', ''), 'gateway')).toThrow(/NATS_PASSWORD must be set in production/);
    expect(() => natsLogin(config('production', devNatsPassword('gateway')), 'gateway')).toThrow(/NATS_PASSWORD/);
    expect(natsLogin(config('production', 'long-random'), 'gateway')).toMatchObject({
      password: 'long-random',
      requireAuthentication: true,
    });
  });

  it('gives each user its own reply subjects', () => {
    expect(loginOptions(natsLogin(config('test', ''), 'message-proxy'))).toMatchObject({
      servers: ['nats://a:4222', 'nats://b:4222'],
      user: 'message-proxy',
      inboxPrefix: '_INBOX.message-proxy',
    });
  });
});
