// The processes of a stack on one machine, in start order, for `pnpm start` (run-stack.js) and the
// benchmarks (bench/support/stack.js): each app's dist/main.js, named, with the environment it adds.
// The message proxy runs one replica per lane (PROXY_LANE, see docker-compose.yml), the bulk one
// last so that the others keep their ops ports; `lanes: false` runs a single replica for both.
const BULK_FROM_CHARS = '131072';

function stackApps({ lanes = true } = {}) {
  return [
    { name: 'tokens', app: 'tokens', env: {} },
    { name: 'providers', app: 'providers', env: {} },
    { name: 'prompts', app: 'prompts', env: {} },
    { name: 'projects', app: 'projects', env: {} },
    { name: 'message-proxy', app: 'message-proxy', env: { PROXY_LANE: lanes ? 'standard' : 'all' } },
    { name: 'gateway', app: 'gateway', env: lanes ? { PROXY_BULK_FROM_CHARS: BULK_FROM_CHARS } : {} },
    ...(lanes ? [{ name: 'message-proxy-bulk', app: 'message-proxy', env: { PROXY_LANE: 'bulk' } }] : []),
  ];
}

module.exports = { stackApps };
