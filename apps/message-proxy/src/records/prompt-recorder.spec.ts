import type { EventPublisher } from '@bastion/messaging';
import { scannerResultRecord } from '@bastion/testing';
import type { Logger } from 'pino';
import type { ProxyConfig } from '../config';
import { type PromptDraft, PromptRecorder, promptView } from './prompt-recorder';

const AT = '2026-03-01T10:00:00.000Z';
const RESULT = scannerResultRecord({
  scannerId: 'cards',
  outcome: 'failed',
  data: { type: 'regex', matches: [[0, 16, 0]] },
  message: 'card number',
  customConfig: true,
  completedDate: AT,
  scannerVersionMeta: { id: 'v-1', name: 'cards v1', published: true, direction: 'both' },
});

const DRAFT: PromptDraft = {
  principal: { sub: 'u', tenant: 't', roles: ['member'] },
  projectId: 'p',
  provider: 'claude',
  providerId: null,
  input: '4111111111111111',
  type: 'prompt',
  source: 'vendor',
};

/** Records one blocked prompt with RESULT; answers the record and the scanner results as published (through JSON). */
async function recordOne(form: ProxyConfig['RECORD_SCANNER_RESULTS_FORM']) {
  const published: { result: { scannerResults: unknown } }[] = [];
  const events = {
    grouped: () => ({
      publishDurably: (payload: unknown) => {
        published.push(JSON.parse(JSON.stringify(payload)) as (typeof published)[number]);
        return Promise.resolve();
      },
    }),
  } as unknown as EventPublisher;
  const config = { RECORD_GROUP_MAX: 8, RECORD_BUDGET_MS: 1000, RECORD_SCANNER_RESULTS_FORM: form } as ProxyConfig;
  const recorder = new PromptRecorder(events, {} as Logger, config);
  const record = await recorder.record(recorder.start(DRAFT), {
    outcome: 'blocked',
    response: null,
    providerResult: null,
    scannerResults: [RESULT],
  });
  expect(published).toHaveLength(1);
  return { record, onTheBus: published[0].result.scannerResults };
}

describe('PromptRecorder', () => {
  it('publishes scanner results as tuples, and answers the record with them as objects', async () => {
    const { record, onTheBus } = await recordOne('tuples');
    expect(onTheBus).toEqual([
      ['cards', 'failed', 'request', RESULT.data, 'card number', true, AT, AT, 'v-1', 'cards v1', true, 'both'],
    ]);
    expect(record.result.scannerResults).toEqual([RESULT]);
    expect(promptView(record).result.scannerResults[0]).toMatchObject({
      scannerId: 'cards',
      scannerVersionMeta: { id: 'v-1', name: 'cards v1', published: true, direction: 'both', createdAt: '' },
    });
  });

  it('publishes them as objects when told to, while older prompt stores still run', async () => {
    const { onTheBus } = await recordOne('objects');
    expect(onTheBus).toEqual([RESULT]);
  });
});
