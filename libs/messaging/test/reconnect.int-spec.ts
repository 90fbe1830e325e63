import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { declareEvent, ErrorCode } from '@bastion/contracts';
import { IsString } from 'class-validator';
import pino from 'pino';
import type { NatsConnection } from '@nats-io/transport-node';
import { lifecycleCheck, processState, reconnectDelay } from '../src/nats/connection-state';
import { testNatsLogin, untypedRpc } from '@bastion/testing';
import { connectNats } from '../src/nats/nats-connection';
import { NatsRpcClient } from '../src/nats/rpc-client';
import { DurableConsumer } from '../src/jetstream/durable-consumer';
import { ensureStream, EventPublisher } from '../src/jetstream/event-publisher';
import { consumes } from '../src/nats/handles';

class Rec {
  @IsString()
  id!: string;
}

/** A nats-server of this test's own, so it can be killed and started again. */
async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function startNats(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
  return new Promise((resolve) => setTimeout(() => resolve(child), 400));
}

async function until(check: () => Promise<boolean> | boolean, ms: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not within ${ms} ms`);
}

describe('a NATS outage (own nats-server, killed and restarted)', () => {
  let port: number;
  let dir: string;
  let server: ChildProcess | undefined;
  let nc: NatsConnection;

  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'nats-reconnect-'));
    server = await startNats(port, dir);
    nc = await connectNats(testNatsLogin(`nats://127.0.0.1:${port}`), { name: 'reconnect-test' });
  });
  afterAll(async () => {
    await nc?.close();
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails requests at once and reports not ready while down, then recovers without a restart', async () => {
    const rpc = new NatsRpcClient(nc, 5000);
    await expect(lifecycleCheck()).resolves.toBeUndefined();
    server!.kill('SIGKILL');
    await until(() => !processState.isConnected(nc), 3000);
    await expect(lifecycleCheck()).rejects.toThrow(/NATS connection down: reconnect-test/);
    const started = Date.now();
    const err = await rpc.call(untypedRpc('test.anything.v1'), {}, 'r').catch((e: unknown) => e);
    // At once: not after the call's 5 s timeout (a loaded machine may hold this process up a few
    // hundred ms; 491 ms was seen in CI).
    expect(Date.now() - started).toBeLessThan(1500);
    expect(err).toMatchObject({ code: ErrorCode.UNAVAILABLE, retryAfter: 2 });

    server = await startNats(port, dir);
    await until(() => processState.isConnected(nc), 8000);
    await expect(lifecycleCheck()).resolves.toBeUndefined();
    const sub = nc.subscribe('test.echo.v1', {
      callback: (_e, m) => {
        m.respond(JSON.stringify({ response: 'pong', isDisposed: true }));
      },
    });
    await expect(rpc.call(untypedRpc('test.echo.v1'), {}, 'r')).resolves.toBe('pong');
    sub.unsubscribe();
  });

  it('makes every record of a group durable once across a NATS restart: its callers wait, none is lost or doubled', async () => {
    await until(() => processState.isConnected(nc), 8000);
    const event = declareEvent('test.restart.recorded.v1', Rec, 'TEST_RESTART', { grouped: true });
    await ensureStream(nc, { name: event.stream, subjects: [event.subject] });
    const groups = new EventPublisher(nc).grouped(event);
    const ids = Array.from({ length: 60 }, () => randomUUID());
    // The first leaves alone; the others wait for it as a group, while the server goes away. A budget
    // that outlasts the restart and the reconnection on a loaded machine: none may give up.
    const published = Promise.allSettled(ids.map((id) => groups.publishDurably({ id }, id, 20_000)));
    server!.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    server = await startNats(port, dir);
    const outcomes = await published;
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    const seen: string[] = [];
    const consumer = await DurableConsumer.start(nc, {
      ...consumes(event),
      durable: 'restart-store',
      logger: pino({ level: 'silent' }),
      handler: async (e) => void seen.push(e.id),
      batch: { handler: async (es: Rec[]) => void seen.push(...es.map((e) => e.id)) },
    });
    await until(() => seen.length >= ids.length, 10_000);
    await new Promise((r) => setTimeout(r, 200)); // nothing more comes
    await consumer.stop();
    expect([...seen].sort()).toEqual([...ids].sort());
  }, 60_000);

  it('backs off from 250 ms to 2 s with jitter', () => {
    expect(reconnectDelay(0, () => 1)).toBe(250);
    expect(reconnectDelay(0, () => 0)).toBe(125);
    expect(reconnectDelay(2, () => 1)).toBe(1000);
    expect(reconnectDelay(50, () => 1)).toBe(2000);
    expect(reconnectDelay(50, () => 0)).toBe(1000);
  });
});

describe('a NATS that accepts anonymous clients (own nats-server, no users)', () => {
  let port: number;
  let dir: string;
  let server: ChildProcess | undefined;

  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'nats-anonymous-'));
    server = await startNats(port, dir);
  });
  afterAll(() => {
    server?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused where authentication is required (production), since it would enforce no bus permission', async () => {
    const login = { ...testNatsLogin(`nats://127.0.0.1:${port}`), requireAuthentication: true };
    await expect(connectNats(login, { name: 'anonymous-test' })).rejects.toThrow(/accepts anonymous clients/);
    const allowed = await connectNats(testNatsLogin(`nats://127.0.0.1:${port}`), { name: 'anonymous-test' });
    await allowed.close();
  });
});
