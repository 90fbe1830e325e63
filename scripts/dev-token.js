#!/usr/bin/env node
// Prints a development bearer token (and nothing else), signed with the development key:
//   pnpm -s dev-token --tenant acme --role admin [--project <id>] [--sub <subject>] [--ttl <seconds>]
const { parseArgs } = require('node:util');
const { signDevToken } = require('../libs/auth/dist/sign-dev-token.js');

const ROLES = ['admin', 'member', 'viewer'];
let values;
try {
  ({ values } = parseArgs({
    options: {
      tenant: { type: 'string' },
      role: { type: 'string', multiple: true },
      project: { type: 'string' },
      sub: { type: 'string' },
      ttl: { type: 'string' },
    },
  }));
} catch (err) {
  console.error(err.message);
  process.exit(2);
}
const roles = values.role ?? [];
if (!values.tenant || roles.length === 0 || !roles.every((r) => ROLES.includes(r))) {
  console.error(
    'usage: pnpm -s dev-token --tenant <tenant> --role <admin|member|viewer> [--project <id>] [--sub <subject>] [--ttl <seconds>]',
  );
  process.exit(2);
}
process.stdout.write(
  signDevToken({
    tenant: values.tenant,
    roles,
    project: values.project,
    sub: values.sub,
    expiresInSeconds: values.ttl ? Number(values.ttl) : undefined,
  }) + '\n',
);
