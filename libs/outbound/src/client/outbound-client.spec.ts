import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { createHash, generateKeyPairSync, verify } from 'node:crypto';
import { createGzip, gzipSync } from 'node:zlib';
import type { Resolver } from '../address/guarded-lookup';
import { OutboundError, type OutboundErrorKind } from '../errors/outbound-error';
import { signOciRequest } from '../signing/oci-signature';
import { createOutboundClient, type OutboundClient, type OutboundClientOptions } from './outbound-client';

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/** A real server on 127.0.0.1 that records what reached it. */
interface LocalServer {
  port: number;
  hits: { method?: string; url?: string; headers: IncomingMessage['headers']; body: Buffer }[];
  close(): Promise<void>;
}

async function startServer(handler: Handler): Promise<LocalServer> {
  const hits: LocalServer['hits'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      hits.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A server that answers 200 with `headers`, sends `first`, then drops the connection mid-body. */
function serverThatCuts(headers: Record<string, string>, first: string): Promise<LocalServer> {
  return startServer((_req, res) => {
    res.writeHead(200, headers);
    res.write(first);
    setTimeout(() => res.socket?.destroy(), 20);
  });
}

async function freePort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** The OutboundError a promise rejects with (fails the test if it resolves or throws anything else). */
async function failure(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    return err as OutboundError;
  }
  throw new Error('expected the request to fail');
}

const clients: OutboundClient[] = [];
function client(options?: OutboundClientOptions): OutboundClient {
  const c = createOutboundClient(options);
  clients.push(c);
  return c;
}
afterEach(() => clients.splice(0).forEach((c) => c.close()));

describe('OutboundClient against a local server', () => {
  let server: LocalServer;
  beforeAll(async () => {
    server = await startServer((req, res, body) => {
      if (req.url === '/fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      } else if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'x-seen-host': req.headers.host ?? '' });
        res.end(JSON.stringify({ method: req.method, body: body.toString('utf8') }));
      }
    });
  });
  afterAll(() => server.close());
  beforeEach(() => server.hits.splice(0));

  const url = (path = '/', host = '127.0.0.1') => `http://${host}:${server.port}${path}`;

  it('refuses the loopback server without an allowlist, before anything reaches it', async () => {
    const err = await failure(client().request({ method: 'GET', url: url() }));
    expect(err.kind).toBe('blocked_address');
    expect(err.message).toBe('refused: 127.0.0.1 is a loopback address (set OUTBOUND_ALLOWLIST to allow it)');
    expect(server.hits).toHaveLength(0);
  });

  it('refuses a name that resolves to loopback (localhost) without an allowlist', async () => {
    const err = await failure(client().request({ method: 'GET', url: url('/', 'localhost') }));
    expect(err.kind).toBe('blocked_address');
    expect(err.message).toBe('refused: localhost is not an allowed destination (set OUTBOUND_ALLOWLIST to allow it)');
    expect(server.hits).toHaveLength(0);
  });

  it.each(['127.0.0.1', '127.0.0.1/32', '127.0.0.0/8'])(
    'reaches it when OUTBOUND_ALLOWLIST is %s',
    async (allowlist) => {
      const res = await client({ allowlist }).request({ method: 'GET', url: url() });
      expect(res.status).toBe(200);
      expect(server.hits).toHaveLength(1);
    },
  );

  it('reaches it by name when OUTBOUND_ALLOWLIST is localhost:<port>, and only on that port', async () => {
    const allowed = client({ allowlist: `localhost:${server.port}` });
    const res = await allowed.request({ method: 'GET', url: url('/', 'localhost') });
    expect(res.status).toBe(200);
    // The entry names the host, not the address: 127.0.0.1 itself stays refused.
    expect((await failure(allowed.request({ method: 'GET', url: url() }))).kind).toBe('blocked_address');
    const otherPort = client({ allowlist: `localhost:${server.port + 1}` });
    expect((await failure(otherPort.request({ method: 'GET', url: url('/', 'localhost') }))).kind).toBe(
      'blocked_address',
    );
  });

  it.each([
    ['hexadecimal', '0x7f000001'],
    ['decimal', '2130706433'],
    ['short', '127.1'],
    ['octal', '0177.0.0.1'],
    ['IPv4-mapped IPv6', '[::ffff:127.0.0.1]'],
    ['IPv4-mapped IPv6 in hex', '[::ffff:7f00:1]'],
  ])('refuses loopback written in %s form (%s)', async (_form, host) => {
    const err = await failure(client().request({ method: 'GET', url: url('/', host) }));
    expect(err.kind).toBe('blocked_address');
    expect(server.hits).toHaveLength(0);
  });

  it('normalises alternate encodings before matching the allowlist', async () => {
    const res = await client({ allowlist: '127.0.0.1' }).request({ method: 'GET', url: url('/', '0x7f000001') });
    expect(res.status).toBe(200);
  });

  it('returns a 500 as a response, body and headers included', async () => {
    const res = await client({ allowlist: '127.0.0.1' }).request({ method: 'GET', url: url('/fail') });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ error: 'boom' });
  });

  it('does not follow redirects: the 3xx is the response and the target is never contacted', async () => {
    const res = await client({ allowlist: '127.0.0.1' }).request({ method: 'GET', url: url('/redirect') });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('http://169.254.169.254/latest/meta-data');
    expect(server.hits).toHaveLength(1);
  });

  it('adds no content type the caller did not set', async () => {
    await client({ allowlist: '127.0.0.1' }).request({ method: 'POST', url: url(), body: 'raw' });
    expect(server.hits[0].headers['content-type']).toBeUndefined();
    expect(server.hits[0].body.toString()).toBe('raw');
  });

  it('ignores proxies from the environment, which would connect on our behalf unchecked', async () => {
    const proxy = await startServer((_req, res) => res.writeHead(200).end('from the proxy'));
    const saved = { http: process.env.HTTP_PROXY, lower: process.env.http_proxy };
    process.env.HTTP_PROXY = process.env.http_proxy = `http://127.0.0.1:${proxy.port}`;
    try {
      const res = await client({ allowlist: '127.0.0.1' }).request({ method: 'GET', url: url() });
      expect(res.status).toBe(200);
      expect(server.hits).toHaveLength(1);
      expect(proxy.hits).toHaveLength(0);
    } finally {
      for (const [name, value] of [
        ['HTTP_PROXY', saved.http],
        ['http_proxy', saved.lower],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await proxy.close();
    }
  });

  it('sends the body byte for byte with the given headers', async () => {
    const body = '{"prompt":"héllo"}';
    const res = await client({ allowlist: '127.0.0.1' }).request({
      method: 'POST',
      url: url('/echo?x=1'),
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body,
    });
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ method: 'POST', body });
    expect(server.hits[0].url).toBe('/echo?x=1');
    expect(server.hits[0].headers['x-api-key']).toBe('k');
    expect(server.hits[0].headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('sends a header character from U+0080 to U+00FF as its one byte, with a string body as with none', async () => {
    const c = client({ allowlist: '127.0.0.1' });
    await c.request({ method: 'POST', url: url('/echo'), headers: { 'x-name': 'José' }, body: 'hi' });
    await c.request({ method: 'GET', url: url('/echo'), headers: { 'x-name': 'José' } });
    // The server reads header bytes as latin1: two UTF-8 bytes would read as "JosÃ©".
    expect(server.hits.map((h) => h.headers['x-name'])).toEqual(['José', 'José']);
    expect(server.hits[0].body.toString('utf8')).toBe('hi');
  });

  it('delivers exactly what was signed: the server verifies an OCI signature over what it received', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const request = {
      method: 'POST',
      url: url('/20160918/things?limit=1'),
      headers: { 'opc-request-id': 'r1' },
      body: '{"name":"ünï"}',
    };
    const added = signOciRequest(request, {
      keyId: 'k',
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    await client({ allowlist: '127.0.0.1' }).request({ ...request, headers: { ...request.headers, ...added } });

    const hit = server.hits[0];
    const names = /headers="([^"]+)"/.exec(String(hit.headers.authorization))![1].split(' ');
    const received = names
      .map((n) => `${n}: ${n === '(request-target)' ? `${hit.method!.toLowerCase()} ${hit.url}` : hit.headers[n]}`)
      .join('\n');
    const signature = Buffer.from(/signature="([^"]+)"/.exec(String(hit.headers.authorization))![1], 'base64');
    expect(verify('sha256', Buffer.from(received), publicKey, signature)).toBe(true);
    expect(hit.headers['x-content-sha256']).toBe(createHash('sha256').update(hit.body).digest('base64'));
  });

  it('connects to the address it checked while keeping the URL host name in the Host header', async () => {
    // A resolver playing DNS for a made-up provider name: it points at our local server.
    const calls: string[] = [];
    const resolve: Resolver = async (name) => {
      calls.push(name);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const res = await client({ allowlist: '127.0.0.1', resolve }).request({
      method: 'GET',
      url: url('/', 'provider.test'),
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-seen-host']).toBe(`provider.test:${server.port}`);
    expect(calls).toEqual(['provider.test']);
  });

  it('refuses a public-looking name whose DNS answer is private (rebinding), before connecting', async () => {
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const logged: Record<string, unknown>[] = [];
    const log = { warn: (details: Record<string, unknown>) => logged.push(details) };
    const err = await failure(
      client({ resolve, log }).request({ method: 'GET', url: url('/', 'api.provider.example') }),
    );
    expect(err.kind).toBe('blocked_address');
    // The client sees that the name is not allowed, not what it resolved to; the log has that.
    expect(err.message).toBe(
      'refused: api.provider.example is not an allowed destination (set OUTBOUND_ALLOWLIST to allow it)',
    );
    expect(logged).toEqual([expect.objectContaining({ host: 'api.provider.example', address: '127.0.0.1' })]);
    expect(server.hits).toHaveLength(0);
  });
});

describe('OutboundClient refusals that need no server', () => {
  it('refuses the metadata endpoint at once, without trying to connect', async () => {
    // A connection attempt to this unroutable address would end as a 'timeout', not 'blocked_address'.
    const err = await failure(
      client({ timeoutMs: 10_000 }).request({ method: 'GET', url: 'http://169.254.169.254/latest/meta-data' }),
    );
    expect(err.kind).toBe('blocked_address');
    expect(err.message).toBe(
      'refused: 169.254.169.254 is a link-local/metadata address (set OUTBOUND_ALLOWLIST to allow it)',
    );
  });

  it('refuses the metadata endpoint in IPv4-mapped IPv6 form', async () => {
    const err = await failure(client().request({ method: 'GET', url: 'http://[::ffff:169.254.169.254]/' }));
    expect(err.kind).toBe('blocked_address');
    expect(err.message).toContain('(169.254.169.254) is a link-local/metadata address');
  });

  it.each([
    ['http://10.0.0.1/', 'a private address'],
    ['http://[::1]/', 'a loopback address'],
    ['http://0.0.0.0/', 'an unspecified address'],
    ['http://100.64.0.1/', 'a carrier-grade NAT'],
    ['http://[fd00:ec2::254]/', 'a cloud metadata address'],
  ])('refuses %s as %s', async (target, reason) => {
    const err = await failure(client().request({ method: 'GET', url: target }));
    expect(err.kind).toBe('blocked_address');
    expect(err.message).toContain(reason);
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/x', 'gopher://127.0.0.1:70/', 'not a url', '/relative/path'])(
    'refuses %s as an invalid URL',
    async (target) => {
      expect((await failure(client().request({ method: 'GET', url: target }))).kind).toBe('invalid_url');
    },
  );
});

describe('OutboundClient failures', () => {
  const allowLocal = { allowlist: '127.0.0.1' };

  it('reports a closed port as unreachable', async () => {
    const port = await freePort();
    const err = await failure(client(allowLocal).request({ method: 'GET', url: `http://127.0.0.1:${port}/` }));
    expect(err.kind).toBe('unreachable');
    expect(err.message).toBe(`cannot reach http://127.0.0.1:${port}: connection refused (ECONNREFUSED)`);
  });

  it('gives up at the deadline on a server that never answers', async () => {
    const silent = await startServer(() => undefined);
    try {
      // Without the deadline this request would wait for ever (and the test hit jest's timeout).
      const err = await failure(
        client(allowLocal).request({ method: 'GET', url: `http://127.0.0.1:${silent.port}/`, timeoutMs: 150 }),
      );
      expect(err.kind).toBe('timeout');
      expect(err.message).toBe(`http://127.0.0.1:${silent.port} did not answer within 150 ms`);
    } finally {
      await silent.close();
    }
  });

  it('keeps the deadline while the body trickles in', async () => {
    const trickle = await startServer((_req, res) => {
      res.writeHead(200);
      const t = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(t));
    });
    try {
      const err = await failure(
        client(allowLocal).request({ method: 'GET', url: `http://127.0.0.1:${trickle.port}/`, timeoutMs: 200 }),
      );
      expect(err.kind).toBe('timeout');
    } finally {
      await trickle.close();
    }
  });

  it('fails a body cut short by the server, without waiting for the deadline', async () => {
    const cut = await serverThatCuts({ 'content-length': '100' }, 'only ten b');
    try {
      const started = Date.now();
      const err = await failure(
        client(allowLocal).request({ method: 'GET', url: `http://127.0.0.1:${cut.port}/`, timeoutMs: 5000 }),
      );
      expect(err.kind).toBe('unreachable');
      expect(err.message).toContain('connection reset');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await cut.close();
    }
  });

  it('fails a stream cut short by the server as an OutboundError, and gives the reader what came first', async () => {
    const cut = await serverThatCuts({ 'content-type': 'text/event-stream' }, 'event: ping\n\n');
    try {
      const res = await client(allowLocal).stream({
        method: 'GET',
        url: `http://127.0.0.1:${cut.port}/`,
        timeoutMs: 5000,
      });
      const read: string[] = [];
      const err = await failure(
        (async () => {
          for await (const chunk of res.body) read.push(String(chunk));
        })(),
      );
      expect(read.join('')).toBe('event: ping\n\n');
      expect(err.kind).toBe('unreachable');
    } finally {
      await cut.close();
    }
  });

  it('gives a stream its reader left unread back to the pool, so the next request reuses its connection', async () => {
    const ports = new Set<number>();
    const srv = await startServer((req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end('event: a\n\n'.repeat(20000));
    });
    try {
      const c = client(allowLocal);
      const target = `http://127.0.0.1:${srv.port}/`;
      const first = await c.stream({ method: 'GET', url: target });
      // The whole answer arrives; the reader gives it up unread (a guard that stopped the stream).
      await new Promise((resolve) => setTimeout(resolve, 100));
      first.body.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await c.request({ method: 'GET', url: target })).status).toBe(200);
      expect(ports.size).toBe(1);
    } finally {
      await srv.close();
    }
  });

  it('remembers a short URL it found allowed, never a long one (a template may put a prompt in it)', async () => {
    const c = client(allowLocal);
    const remembered = (c as unknown as { checkedUrls: Map<string, URL> }).checkedUrls;
    const short = `http://127.0.0.1:${await freePort()}/v1/messages`;
    const long = `${short}?q=${'a'.repeat(600)}`;
    for (const target of [short, long]) await failure(c.request({ method: 'GET', url: target, timeoutMs: 1000 }));
    expect([...remembered.keys()]).toEqual([short]);
  });

  it('refuses an IP literal each time it is asked: a refusal is never remembered as checked', async () => {
    const c = client();
    for (let i = 0; i < 2; i++)
      expect((await failure(c.request({ method: 'GET', url: 'http://127.0.0.1:9/' }))).kind).toBe('blocked_address');
  });

  describe('size caps', () => {
    let big: LocalServer;
    beforeAll(async () => {
      big = await startServer((req, res) => {
        const payload = Buffer.alloc(64 * 1024, 'a');
        if (req.url === '/gzip') res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(payload));
        else res.writeHead(200).end(payload);
      });
    });
    afterAll(() => big.close());

    it('refuses a response larger than the cap', async () => {
      const err = await failure(
        client({ ...allowLocal, maxResponseBytes: 1024 }).request({
          method: 'GET',
          url: `http://127.0.0.1:${big.port}/`,
        }),
      );
      expect(err.kind).toBe('too_large');
      expect(err.message).toBe(`the response from http://127.0.0.1:${big.port} is larger than 1024 bytes`);
    });

    it('answers the next request on a client whose last response outgrew the cap', async () => {
      const capped = client({ ...allowLocal, maxResponseBytes: 1024 });
      const url = `http://127.0.0.1:${big.port}/`;
      expect((await failure(capped.request({ method: 'GET', url }))).kind).toBe('too_large');
      const gz = await capped.request({ method: 'HEAD', url: `${url}gzip` });
      expect(gz.status).toBe(200);
      expect(gz.body.length).toBe(0);
    });

    it('counts the decompressed size, so a small gzip bomb is caught too', async () => {
      const err = await failure(
        client({ ...allowLocal, maxResponseBytes: 1024 }).request({
          method: 'GET',
          url: `http://127.0.0.1:${big.port}/gzip`,
        }),
      );
      expect(err.kind).toBe('too_large');
    });

    it('decompresses a response within the cap', async () => {
      const res = await client(allowLocal).request({ method: 'GET', url: `http://127.0.0.1:${big.port}/gzip` });
      expect(res.body.length).toBe(64 * 1024);
    });

    it('refuses a request body larger than the cap before sending it', async () => {
      const err = await failure(
        client({ ...allowLocal, maxRequestBytes: 10 }).request({
          method: 'POST',
          url: `http://127.0.0.1:${big.port}/`,
          body: 'x'.repeat(11),
        }),
      );
      expect(err.kind).toBe('too_large');
      expect(err.message).toBe('the request body is larger than 10 bytes');
    });

    it('streams a body and stops a stream that outgrows the cap', async () => {
      const ok = await client(allowLocal).stream({ method: 'GET', url: `http://127.0.0.1:${big.port}/` });
      let received = 0;
      for await (const chunk of ok.body) received += (chunk as Buffer).length;
      expect(received).toBe(64 * 1024);

      const capped = await client({ ...allowLocal, maxResponseBytes: 1024 }).stream({
        method: 'GET',
        url: `http://127.0.0.1:${big.port}/`,
      });
      expect(capped.status).toBe(200);
      const err = await failure(
        (async () => {
          for await (const chunk of capped.body) void chunk;
        })(),
      );
      expect(err.kind).toBe('too_large');
    });
  });

  it('keeps the original host name for TLS (SNI) and reports a broken handshake as tls', async () => {
    // Not a TLS server: it records the ClientHello and answers in plain HTTP.
    const hellos: Buffer[] = [];
    const tcp: TcpServer = createTcpServer((socket) => {
      socket.once('data', (hello: Buffer) => {
        hellos.push(hello);
        socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const { port } = tcp.address() as AddressInfo;
    try {
      const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
      const err = await failure(
        client({ allowlist: '127.0.0.1', resolve }).request({ method: 'GET', url: `https://provider.test:${port}/` }),
      );
      expect(err.kind).toBe('tls');
      expect(err.message).toMatch(new RegExp(`^TLS with https://provider.test:${port} failed: \\S`));
      expect(hellos[0].includes(Buffer.from('provider.test'))).toBe(true);
    } finally {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    }
  });

  it('decompresses a gzip event stream as it arrives, not at its end', async () => {
    const events = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      const gzip = createGzip();
      gzip.pipe(res);
      gzip.write('event: ping\ndata: {}\n\n');
      gzip.flush();
      // The rest only once the client showed it received the first event (the test ends it).
      res.on('close', () => gzip.destroy());
    });
    try {
      const res = await client(allowLocal).stream({ method: 'GET', url: `http://127.0.0.1:${events.port}/` });
      expect(res.headers['content-encoding']).toBeUndefined();
      const first = await res.body[Symbol.asyncIterator]().next();
      expect(String(first.value)).toBe('event: ping\ndata: {}\n\n');
      res.body.destroy();
    } finally {
      await events.close();
    }
  });

  it('breaks a stream off when the caller cancels it mid-body, as a cancellation', async () => {
    const endless = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const t = setInterval(() => res.write('data: x\n\n'), 10);
      res.on('close', () => clearInterval(t));
    });
    try {
      const controller = new AbortController();
      const res = await client(allowLocal).stream({
        method: 'GET',
        url: `http://127.0.0.1:${endless.port}/`,
        signal: controller.signal,
      });
      const err = await failure(
        (async () => {
          for await (const chunk of res.body) {
            void chunk;
            controller.abort();
          }
        })(),
      );
      expect(err.kind).toBe('other');
      expect(err.message).toContain('was cancelled');
    } finally {
      await endless.close();
    }
  });

  it('reports a cancelled request as other, not as a timeout', async () => {
    const silent = await startServer(() => undefined);
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const err = await failure(
        client(allowLocal).request({
          method: 'GET',
          url: `http://127.0.0.1:${silent.port}/`,
          signal: controller.signal,
        }),
      );
      expect(err.kind satisfies OutboundErrorKind).toBe('other');
      expect(err.message).toContain('was cancelled');
    } finally {
      await silent.close();
    }
  });
});
