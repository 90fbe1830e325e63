#!/usr/bin/env node
// The far side of the bare hops in hops.js, a process of its own: answers each NATS request on
// `hops.echo` with its data, and each HTTP request (keep-alive) with its body.
//   node hop-responder.js <nats url> <http port>
'use strict';
const http = require('node:http');
const { connect } = require('@nats-io/transport-node');

async function main() {
  const [natsUrl, httpPort] = process.argv.slice(2);
  const nc = await connect({ servers: natsUrl });
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(Number(httpPort), '127.0.0.1', resolve));
  process.stdout.write('ready\n');
  for await (const m of nc.subscribe('hops.echo')) m.respond(m.data);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
