#!/usr/bin/env node
// What the prompt store's insert costs Postgres per record, in three forms taking turns: what the
// store does (the statement prepared once per connection, scanner results kept as arrays:
// PROMPTS_SCANNER_RESULTS_FORM=arrays); the same with scanner results kept as objects (`objects`,
// the form before); and the statement sent unnamed (parsed and planned each time, as Prisma sends a
// raw query). Records mapped and encoded by the store's own code; CPU time of the Postgres backend,
// from /proc, per record; a scratch database on DATABASE_URL's server with the prompts schema,
// dropped after. Also the stored row's size in each form.
//   pnpm build && pnpm bench:store [-- --statements 2000 --group 4 --rounds 3]
const { randomUUID } = require('node:crypto');
const { parseArgs } = require('node:util');
const { Client } = require('pg');
const { INSERT_PROMPTS, insertParameter } = require('../../apps/prompts/dist/prompts/prompt.repository.js');
const { promptRow } = require('../../apps/prompts/dist/prompts/prompt.mapper.js');
const { findServiceMigrations, migrate } = require('../../libs/persistence/dist/db/index.js');
const { adminDatabaseUrl, cpuMs, root } = require('../support/stack');
const { quantile } = require('../support/stats');

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    statements: { type: 'string', default: '2000' },
    group: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
  },
});
const statements = Number(values.statements);
const group = Number(values.group);
const rounds = Number(values.rounds);

/** A record as the message proxy publishes it: a guarded call with three scanners each way. */
function record() {
  const now = new Date().toISOString();
  const result = (scanDirection) => ({
    scannerId: randomUUID(),
    outcome: 'passed',
    scanDirection,
    data: { type: 'regex', matches: [] },
    message: '',
    customConfig: true,
    startedDate: now,
    completedDate: now,
    scannerVersionMeta: { id: randomUUID(), name: 'v_1', published: true, direction: 'both' },
  });
  const answer = { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'echo: hi' }] };
  return {
    id: randomUUID(),
    tenant: 'bench',
    projectId: randomUUID(),
    userId: 'bench-user',
    provider: 'claude',
    providerId: randomUUID(),
    input: 'hello there',
    memory: [],
    extraInputs: {},
    externalMetadata: {},
    fromTemplate: false,
    templateId: null,
    parentId: null,
    preserve: false,
    type: 'prompt',
    source: 'vendor',
    receivedAt: now,
    result: {
      outcome: 'cleared',
      response: 'echo: hi',
      files: [],
      providerResult: { data: JSON.stringify(answer), statusCode: 200, sentDate: now, receivedDate: now },
      scannerResults: ['request', 'request', 'request', 'response', 'response', 'response'].map(result),
    },
  };
}

async function main() {
  const server = adminDatabaseUrl();
  const db = `bench_store_${process.pid}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${db}`);
  const url = new URL(server);
  url.pathname = `/${db}`;
  const c = new Client({ connectionString: url.href });
  try {
    // The prompts service's migrations, applied as `pnpm start` applies them.
    const prompts = findServiceMigrations(root).find((m) => m.service === 'prompts');
    await migrate(url.href, prompts);
    await c.connect();
    const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const forms = {
      prepared: { statement: { name: 'insert_prompts' }, results: 'arrays' },
      'prepared, objects': { statement: { name: 'insert_prompts' }, results: 'objects' },
      unnamed: { statement: {}, results: 'arrays' },
    };
    const figures = Object.fromEntries(Object.keys(forms).map((f) => [f, []]));
    console.log(
      `prompt store insert: ${statements} statements of ${group} records, ${rounds} rounds, the forms taking turns`,
    );
    for (let r = 0; r < rounds; r++) {
      for (const [form, { statement, results }] of Object.entries(forms)) {
        const before = cpuMs(pid);
        const started = performance.now();
        for (let i = 0; i < statements; i++)
          await c.query({
            ...statement,
            text: INSERT_PROMPTS,
            values: [insertParameter(Array.from({ length: group }, () => promptRow(record(), results)))],
          });
        const cpu = (cpuMs(pid) - before) / (statements * group);
        figures[form].push(cpu);
        console.log(
          `  round ${r + 1}, ${form.padEnd(17)}: ${cpu.toFixed(4)} ms of Postgres CPU per record, ${((performance.now() - started) / statements).toFixed(3)} ms per statement`,
        );
      }
    }
    const median = (xs) =>
      quantile(
        [...xs].sort((a, b) => a - b),
        0.5,
      );
    const m = Object.fromEntries(Object.entries(figures).map(([f, xs]) => [f, median(xs)]));
    console.log(
      `median ms per record: prepared ${m.prepared.toFixed(4)}; with scanner results as objects ${m['prepared, objects'].toFixed(4)} (${(m['prepared, objects'] / m.prepared).toFixed(2)}x); unnamed ${m.unnamed.toFixed(4)} (${(m.unnamed / m.prepared).toFixed(2)}x)`,
    );
    // The stored row in each form (bytes as Postgres keeps them; a row over about 2 KB is compressed or moved out of line).
    const size = async (results) => {
      const row = promptRow(record(), results);
      await c.query({ name: 'insert_prompts', text: INSERT_PROMPTS, values: [insertParameter([row])] });
      const { rows } = await c.query(
        'SELECT pg_column_size(p.*) AS row, pg_column_size(scanner_results) AS results FROM prompts.prompts p WHERE id = $1',
        [row.id],
      );
      return `${rows[0].row} bytes (scanner results ${rows[0].results})`;
    };
    console.log(`a guarded record's row: ${await size('arrays')} as arrays, ${await size('objects')} as objects`);
  } finally {
    await c.end().catch(() => {});
    await admin.query(`DROP DATABASE IF EXISTS ${db}`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
