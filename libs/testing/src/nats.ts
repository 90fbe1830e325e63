import { type BusUser, devNatsPassword, type NatsLogin, type UnrestrictedUser } from '@bastion/messaging';

const workerNatsUrl = () => process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * The tests' own NATS user: it watches and drives the bus as no service may (it subscribes to
 * events, calls internal subjects, plays a second gateway). The tests' nats-servers know it; the
 * services under test still connect as their own restricted users.
 */
export const TEST_NATS_USER: UnrestrictedUser = { user: 'bastion-test', password: 'bastion-test' };

/** The test user's login to this jest worker's NATS (TEST_NATS_URL, set by the worker environment). */
export function testNatsLogin(url = workerNatsUrl()): NatsLogin {
  return { url, ...TEST_NATS_USER };
}

/** A service's own login (its development password), to test what that user may and may not do. */
export function serviceNatsLogin(user: BusUser, url = workerNatsUrl()): NatsLogin {
  return { url, user, password: devNatsPassword(user) };
}
