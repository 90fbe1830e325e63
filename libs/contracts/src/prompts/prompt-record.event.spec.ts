import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  checkPromptRecord,
  PromptRecordedEvent,
  scannerResultFromTuple,
  scannerResultTuple,
  type ScannerResultRecord,
} from './prompt-record.event';

const AT = '2026-03-01T10:00:00.000Z';

function record(): Record<string, unknown> {
  return {
    id: 'a0000000-0000-4000-8000-000000000001',
    tenant: 't',
    projectId: null,
    userId: 'u',
    provider: 'claude',
    providerId: 'p-1',
    input: 'hi',
    memory: ['earlier'],
    extraInputs: {},
    externalMetadata: { k: 1 },
    fromTemplate: false,
    templateId: null,
    parentId: null,
    preserve: false,
    type: 'prompt',
    source: 'vendor',
    receivedAt: AT,
    result: {
      outcome: 'cleared',
      response: 'hello',
      files: [],
      providerResult: { data: '{}', statusCode: 200, sentDate: AT, receivedDate: AT },
      scannerResults: [
        {
          scannerId: 's',
          outcome: 'passed',
          scanDirection: 'request',
          data: { type: 'regex', matches: [] },
          message: '',
          customConfig: false,
          startedDate: AT,
          completedDate: AT,
          scannerVersionMeta: null,
        },
      ],
    },
  };
}

/** A copy of the record with the value at `path` (dot-separated) replaced, or removed for `undefined`. */
function withValue(path: string, value: unknown): Record<string, unknown> {
  const r = record();
  const keys = path.split('.');
  let at: Record<string, unknown> = r;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  if (value === undefined) delete at[keys.at(-1)!];
  else at[keys.at(-1)!] = value;
  return r;
}

const validatorAccepts = (raw: unknown) => validateSync(plainToInstance(PromptRecordedEvent, raw)).length === 0;

/** The prompt store's cheap check keeps the class's rules: whatever one refuses, the other does. */
describe('checkPromptRecord', () => {
  it('accepts the records the proxy publishes, with and without the optional parts', () => {
    expect(checkPromptRecord(record())).toBeUndefined();
    const bare = withValue('result', {
      outcome: 'blocked',
      response: null,
      files: [],
      providerResult: null,
      scannerResults: [],
    });
    expect(checkPromptRecord(bare)).toBeUndefined();
    expect(validatorAccepts(bare)).toBe(true);
    expect(checkPromptRecord(withValue('templateId', 'a0000000-0000-4000-8000-000000000002'))).toBeUndefined();
  });

  it.each([
    ['id', 'not-a-uuid'],
    ['id', undefined],
    ['tenant', 7],
    ['userId', undefined],
    ['provider', null],
    ['input', ['hi']],
    ['projectId', 3],
    ['providerId', {}],
    ['parentId', false],
    ['memory', 'earlier'],
    ['memory', [1]],
    ['extraInputs', []],
    ['externalMetadata', null],
    ['fromTemplate', 'false'],
    ['templateId', 'x'],
    ['preserve', undefined],
    ['type', 'chat'],
    ['source', 'elsewhere'],
    ['receivedAt', 'yesterday'],
    ['receivedAt', 1772359200000],
    ['result', null],
    ['result.outcome', 'allowed'],
    ['result.response', 5],
    ['result.files', {}],
    ['result.providerResult', 'ok'],
    ['result.providerResult.statusCode', 200.5],
    ['result.providerResult.sentDate', 'soon'],
    ['result.scannerResults', {}],
    ['result.scannerResults.0', 'passed'],
    ['result.scannerResults.0.outcome', 'ok'],
    ['result.scannerResults.0.scanDirection', 'both'],
    ['result.scannerResults.0.data', 'regex'],
    ['result.scannerResults.0.customConfig', 0],
    ['result.scannerResults.0.completedDate', undefined],
    ['result.scannerResults.0.scannerVersionMeta', 'v1'],
  ])('refuses %s = %j, as class-validator does', (path, value) => {
    const raw = withValue(path, value);
    expect(validatorAccepts(raw)).toBe(false);
    expect(checkPromptRecord(raw)).toBe(path.replace(/^(result\.\w+)\..*$/, '$1'));
  });

  describe('scanner results as tuples (what the proxy publishes)', () => {
    const object: ScannerResultRecord = {
      scannerId: 's',
      outcome: 'failed',
      scanDirection: 'response',
      data: { type: 'regex', matches: [[3, 9, 0]] },
      message: 'matched',
      customConfig: true,
      startedDate: AT,
      completedDate: AT,
      scannerVersionMeta: { id: 'v-1', name: 'cards', published: true, direction: 'both' },
    };
    const tuple: unknown[] = scannerResultTuple(object);

    it('turns a result into a tuple and back', () => {
      expect(tuple).toEqual([
        's',
        'failed',
        'response',
        object.data,
        'matched',
        true,
        AT,
        AT,
        'v-1',
        'cards',
        true,
        'both',
      ]);
      expect(scannerResultFromTuple(tuple)).toEqual(object);
      expect(scannerResultFromTuple(scannerResultTuple({ ...object, scannerVersionMeta: null }))).toEqual({
        ...object,
        scannerVersionMeta: null,
      });
    });

    it('accepts tuples, objects, and both in one record', () => {
      for (const results of [[tuple], [object, tuple]]) {
        const raw = withValue('result.scannerResults', results);
        expect(checkPromptRecord(raw)).toBeUndefined();
        expect(validatorAccepts(raw)).toBe(true);
      }
    });

    it.each([
      ['one field short', tuple.slice(0, 11)],
      ['an outcome it does not know', tuple.with(1, 'ok')],
      ['a direction that is not one', tuple.with(2, 'both')],
      ['data that is not an object', tuple.with(3, 'regex')],
      ['a message that is not text', tuple.with(4, 5)],
      ['customConfig that is not a boolean', tuple.with(5, 'yes')],
      ['a start that is not a date', tuple.with(6, 'soon')],
      ['a version id that is a number', tuple.with(8, 7)],
      ['a version direction it does not know', tuple.with(11, 'sideways')],
    ])('refuses a tuple with %s, as class-validator does', (_, bad) => {
      const raw = withValue('result.scannerResults', [tuple, bad]);
      expect(checkPromptRecord(raw)).toBe('result.scannerResults');
      expect(validatorAccepts(raw)).toBe(false);
    });
  });

  it('refuses what is not a record at all', () => {
    for (const raw of [null, 'x', [record()], 42]) expect(checkPromptRecord(raw)).toBe('record');
  });
});
