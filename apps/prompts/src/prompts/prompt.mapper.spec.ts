import { type PromptRecordedEvent, scannerResultTuple } from '@bastion/contracts';
import { Prisma, type Prompt } from '../generated/prisma/client';
import { jsonForPostgres, promptRow, promptView, scanView, templateView } from './prompt.mapper';

const scanner = {
  scannerId: 's1',
  outcome: 'failed' as const,
  scanDirection: 'request' as const,
  data: { type: 'regex', matches: [['4111', 10, 14]] },
  message: 'card number',
  customConfig: false,
  startedDate: '2026-03-01T10:00:00.000Z',
  completedDate: '2026-03-01T10:00:00.010Z',
  scannerVersionMeta: null,
};

function record(over: Partial<PromptRecordedEvent> = {}): PromptRecordedEvent {
  return {
    id: '0b6f4a52-2f9b-4c59-9a3b-7d7f0d6e8a11',
    tenant: 'acme',
    projectId: 'p1',
    userId: 'u1',
    provider: 'openai-prod',
    providerId: 'f0000000-0000-4000-8000-000000000001',
    input: 'hello',
    memory: ['earlier'],
    extraInputs: { lang: 'en' },
    externalMetadata: { ticket: 7 },
    fromTemplate: false,
    templateId: null,
    parentId: null,
    preserve: false,
    type: 'prompt',
    source: 'vendor',
    receivedAt: '2026-03-01T10:00:00.000Z',
    result: {
      outcome: 'flagged',
      response: 'hi',
      files: [],
      providerResult: {
        data: '{"x":1}',
        statusCode: 200,
        sentDate: '2026-03-01T10:00:00.020Z',
        receivedDate: '2026-03-01T10:00:01.000Z',
      },
      scannerResults: [scanner],
    },
    ...over,
  } as PromptRecordedEvent;
}

/** What Postgres would give back for a stored row: its JSON columns as JSON text would bring them back. */
function stored(row: Prisma.PromptCreateManyInput): Prompt {
  const json = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  return {
    ...row,
    extraInputs: json(row.extraInputs),
    externalMetadata: json(row.externalMetadata),
    files: json(row.files),
    scannerResults: json(row.scannerResults),
    providerResult: row.providerResult === Prisma.DbNull ? null : json(row.providerResult),
    createdAt: new Date(),
  } as unknown as Prompt;
}

describe('prompt mapping', () => {
  it("shows a stored record as exactly the spec's Prompt, without tenant, source or template id", () => {
    const view = promptView(
      stored(promptRow(record({ fromTemplate: true, templateId: 'a0000000-0000-4000-8000-000000000002' }))),
    );
    expect(view).toEqual({
      id: '0b6f4a52-2f9b-4c59-9a3b-7d7f0d6e8a11',
      parentId: null,
      projectId: 'p1',
      userId: 'u1',
      provider: 'openai-prod',
      input: 'hello',
      memory: ['earlier'],
      extraInputs: { lang: 'en' },
      externalMetadata: { ticket: 7 },
      fromTemplate: true,
      preserve: false,
      receivedAt: '2026-03-01T10:00:00.000Z',
      type: 'prompt',
      result: {
        outcome: 'flagged',
        response: 'hi',
        files: [],
        providerResult: {
          data: '{"x":1}',
          receivedDate: '2026-03-01T10:00:01.000Z',
          sentDate: '2026-03-01T10:00:00.020Z',
          statusCode: 200,
        },
        scannerResults: [scanner],
      },
    });
  });

  it('shows a blocked prompt with no response and no provider result', () => {
    const row = promptRow(
      record({
        result: {
          outcome: 'blocked',
          response: null,
          files: [],
          providerResult: null,
          scannerResults: [scanner],
        } as never,
      }),
    );
    expect(row.providerResult).toBe(Prisma.DbNull);
    expect(promptView(stored(row)).result).toMatchObject({
      outcome: 'blocked',
      response: null,
      providerResult: null,
      scannerResults: [scanner],
    });
  });

  it('shows a scan with its redacted text as redactedInput, and the input itself when nothing was redacted', () => {
    const scanRecord = (outcome: 'redacted' | 'blocked', response: string | null) =>
      stored(
        promptRow(
          record({
            type: 'scan',
            source: 'scans',
            provider: '',
            providerId: null,
            input: 'card 4111',
            result: { outcome, response, files: [], providerResult: null, scannerResults: [scanner] } as never,
          }),
        ),
      );
    expect(scanView(scanRecord('redacted', 'card ****'))).toEqual({
      id: record().id,
      input: 'card 4111',
      redactedInput: 'card ****',
      projectId: 'p1',
      userId: 'u1',
      receivedAt: '2026-03-01T10:00:00.000Z',
      preserve: false,
      externalMetadata: { ticket: 7 },
      extraInputs: { lang: 'en' },
      type: 'scan',
      result: { outcome: 'redacted', scannerResults: [scanner] },
    });
    expect(scanView(scanRecord('blocked', null)).redactedInput).toBe('card 4111');
  });

  it("keeps only the spec's fields of nested results, whatever else a record carried", () => {
    const extra = { ...scanner, internalScore: 0.9, scannerVersionMeta: undefined };
    const row = promptRow(
      record({
        result: {
          ...record().result,
          scannerResults: [extra],
          files: [{ id: 'f', name: 'a.txt', contentType: 'text/plain', data: 'eA==', isBase64: true, path: '/tmp' }],
        } as never,
      }),
    );
    const view = promptView(stored(row));
    expect(view.result.scannerResults[0]).toEqual({ ...scanner, scannerVersionMeta: null });
    expect(view.result.files).toEqual([
      { contentType: 'text/plain', data: 'eA==', id: 'f', isBase64: true, name: 'a.txt' },
    ]);
  });

  it("stores what a record knows of a scanner version, and shows the spec's whole meta, the rest empty", () => {
    const ref = { id: 'v1', name: 'cards', published: true, direction: 'both' as const };
    const empty = { description: '', createdAt: '', createdBy: '', f1Score: null, latestDatasetResult: null };
    // As the proxy records it now, and as records from before carried it (the rest empty already).
    for (const meta of [ref, { ...ref, ...empty }]) {
      const row = promptRow(
        record({ result: { ...record().result, scannerResults: [{ ...scanner, scannerVersionMeta: meta }] } }),
      );
      expect((row.scannerResults as unknown[][])[0].slice(8)).toEqual(['v1', 'cards', true, 'both']);
      expect(promptView(stored(row)).result.scannerResults[0].scannerVersionMeta).toEqual({ ...ref, ...empty });
    }
    // A row stored before, with the whole meta, reads the same.
    const before = {
      ...promptRow(record()),
      scannerResults: [{ ...scanner, scannerVersionMeta: { ...ref, ...empty } }],
    };
    expect(promptView(stored(before)).result.scannerResults[0].scannerVersionMeta).toEqual({ ...ref, ...empty });
  });

  it('stores each scanner result as one array of its fields, no key names, and reads rows stored with objects the same', () => {
    const ref = { id: 'v1', name: 'cards', published: true, direction: 'both' as const };
    const results = [scanner, { ...scanner, scannerId: 's2', outcome: 'passed' as const, scannerVersionMeta: ref }];
    const row = promptRow(record({ result: { ...record().result, scannerResults: results } }));
    const json = JSON.stringify(row.scannerResults);
    for (const key of ['scannerId', 'outcome', 'scanDirection', 'startedDate', 'scannerVersionMeta', 'published'])
      expect(json).not.toContain(`"${key}"`);
    const compact = promptView(stored(row)).result.scannerResults;
    const before = promptView(stored({ ...row, scannerResults: results as never })).result.scannerResults;
    expect(compact).toEqual(before);
    expect(compact.map((r) => [r.scannerId, r.outcome, r.scannerVersionMeta?.name ?? null])).toEqual([
      ['s1', 'failed', null],
      ['s2', 'passed', 'cards'],
    ]);
    expect(compact[0]).toEqual({ ...scanner, scannerVersionMeta: null });
    // PROMPTS_SCANNER_RESULTS_FORM=objects: the form releases before read.
    const objects = promptRow(record({ result: { ...record().result, scannerResults: results } }), 'objects');
    expect(objects.scannerResults).toEqual([
      { ...scanner, scannerVersionMeta: null },
      { ...results[1], scannerVersionMeta: ref },
    ]);
    expect(promptView(stored(objects)).result.scannerResults).toEqual(compact);
  });

  it('stores the tuples a record carries as they are, and as objects in the objects form, read back the same', () => {
    const ref = { id: 'v1', name: 'cards', published: true, direction: 'both' as const };
    const results = [scanner, { ...scanner, scannerId: 's2', outcome: 'passed' as const, scannerVersionMeta: ref }];
    const tuples = results.map(scannerResultTuple);
    const fromObjects = promptRow(record({ result: { ...record().result, scannerResults: results } }));
    const fromTuples = promptRow(record({ result: { ...record().result, scannerResults: tuples } }));
    expect(fromTuples.scannerResults).toEqual(tuples);
    expect(fromTuples.scannerResults).toEqual(fromObjects.scannerResults);
    const objects = promptRow(record({ result: { ...record().result, scannerResults: tuples } }), 'objects');
    expect(objects.scannerResults).toEqual(
      promptRow(record({ result: { ...record().result, scannerResults: results } }), 'objects').scannerResults,
    );
    expect(promptView(stored(objects)).result.scannerResults).toEqual(
      promptView(stored(fromTuples)).result.scannerResults,
    );
  });

  it("stores a tuple's known fields only: what a later release adds is not kept as if this one knew it", () => {
    const tuple = [...scannerResultTuple(scanner), 'from a later release'];
    const row = promptRow(record({ result: { ...record().result, scannerResults: [tuple as never] } }));
    expect(row.scannerResults).toEqual([scannerResultTuple(scanner)]);
  });

  it('reads a scanner_results value it did not write (not an array, odd elements, short arrays) without failing', () => {
    const row = (scannerResults: unknown) =>
      stored({ ...promptRow(record()), scannerResults: scannerResults as never });
    expect(promptView(row(null)).result.scannerResults).toEqual([]);
    expect(promptView(row({ a: 1 })).result.scannerResults).toEqual([]);
    const odd = promptView(row([null, 3, 'x', [], ['s9'], [[1], 2, 3, [4], 5, 'yes', 6, 7, 8, 9, 10, 11]])).result
      .scannerResults;
    // Numbers, strings and null are not results; arrays are, with what they lack read as empty.
    expect(odd).toHaveLength(3);
    expect(odd[0]).toMatchObject({ scannerId: '', message: '', customConfig: false, scannerVersionMeta: null });
    expect(odd[0].data).toEqual({ type: '', matches: [] });
    expect(odd[1].scannerId).toBe('s9');
    // A version id that is not a string is no version.
    expect(odd[2]).toMatchObject({ scannerId: '1', data: { type: '', matches: [] }, scannerVersionMeta: null });
  });

  it('replaces NUL characters and unpaired surrogates, which Postgres cannot store, everywhere in the JSON of a record', () => {
    const row = promptRow(
      record({ input: 'a\u0000b\ud83d', memory: ['\u0000'], externalMetadata: { 'k\u0000': ['v\ude00'] } }),
    );
    const stored = JSON.parse(jsonForPostgres(JSON.stringify(row))) as typeof row;
    expect(stored.input).toBe('a\uFFFDb\uFFFD');
    expect(stored.memory).toEqual(['\uFFFD']);
    expect(stored.externalMetadata).toEqual({ 'k\uFFFD': ['v\uFFFD'] });
    const storable = (text: string) =>
      text
        .replaceAll('\u0000', '\uFFFD')
        .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
    // The text "\u0000" (a backslash and five characters) is not a NUL; escaped backslashes before a NUL are kept;
    // a surrogate pair is a character, kept.
    for (const text of [
      '\\u0000',
      '\\\\u0000',
      '\\\u0000',
      'x\\\\\u0000y',
      '\\ud83d',
      '\ud83d\ude00',
      '\ude00\ud83d',
      '\\\ud83dx',
      'none',
    ]) {
      expect(JSON.parse(jsonForPostgres(JSON.stringify({ text })))).toEqual({ text: storable(text) });
    }
  });

  it('stores the time the record was received, to the millisecond', () => {
    expect(promptRow(record({ receivedAt: '2026-03-01T10:00:00.123456+01:00' })).receivedAt).toEqual(
      new Date('2026-03-01T09:00:00.123Z'),
    );
  });

  it('shows a template record with its creation time', () => {
    const at = new Date('2026-03-02T00:00:00Z');
    expect(
      templateView({
        id: 't',
        tenant: 'acme',
        name: 'n',
        projectId: null,
        promptId: 'p',
        userId: 'u',
        input: 'x',
        createdAt: at,
      }),
    ).toEqual({
      id: 't',
      name: 'n',
      projectId: null,
      promptId: 'p',
      userId: 'u',
      createdAt: '2026-03-02T00:00:00.000Z',
    });
  });
});
