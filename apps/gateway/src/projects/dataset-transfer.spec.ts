import { createHash } from 'node:crypto';
import { DATASET_PART_BYTES, ScannerSubjects } from '@bastion/contracts';
import type { NatsRpcClient } from '@bastion/messaging';
import { datasetParts, evaluateDataset } from './dataset-transfer';

describe('datasetParts', () => {
  it('cuts the UTF-8 bytes into base64 parts that join back to the CSV', () => {
    const csv = `prompt,label\n${'h\u00e9llo,1\n'.repeat(Math.ceil((2.5 * DATASET_PART_BYTES) / 9))}`;
    const { bytes, sha256, parts } = datasetParts(csv);
    expect(parts).toHaveLength(3);
    expect(parts.every((p) => Buffer.from(p, 'base64').length <= DATASET_PART_BYTES)).toBe(true);
    const joined = Buffer.concat(parts.map((p) => Buffer.from(p, 'base64')));
    expect(joined.toString('utf8')).toBe(csv);
    expect(bytes).toBe(joined.length);
    expect(sha256).toBe(createHash('sha256').update(joined).digest('hex'));
  });

  it('makes one (empty) part of an empty body', () => {
    expect(datasetParts('').parts).toEqual(['']);
  });
});

describe('evaluateDataset', () => {
  const principal = { sub: 'u', tenant: 't', roles: ['member' as const] };
  const target = { principal, scannerId: 's', versionRef: 'v_1' };
  const recorder = () => {
    const calls: { subject: string; data: Record<string, unknown> }[] = [];
    const rpc = {
      call: async ({ subject }: { subject: string }, data: Record<string, unknown>) => (
        calls.push({ subject, data }),
        { ok: true }
      ),
    } as unknown as NatsRpcClient;
    return { calls, rpc };
  };

  it('sends a small CSV inline in one request', async () => {
    const { calls, rpc } = recorder();
    await evaluateDataset(rpc, target, 'a,1\n', 'r');
    expect(calls).toEqual([
      { subject: ScannerSubjects.evaluate, data: { ...target, data: Buffer.from('a,1\n').toString('base64') } },
    ]);
  });

  it('stages a large CSV part by part, then evaluates the upload by id, size and checksum', async () => {
    const { calls, rpc } = recorder();
    const csv = 'x,0\n'.repeat(DATASET_PART_BYTES);
    await evaluateDataset(rpc, target, csv, 'r');
    const staged = calls.filter((c) => c.subject === ScannerSubjects.stageDataset);
    expect(staged.map((c) => c.data.part)).toEqual([0, 1, 2, 3]);
    const last = calls[calls.length - 1];
    expect(last.subject).toBe(ScannerSubjects.evaluate);
    expect(last.data.upload).toEqual({
      id: staged[0].data.uploadId,
      parts: 4,
      bytes: csv.length,
      sha256: createHash('sha256').update(csv).digest('hex'),
    });
  });

  it('refuses a body that is not text with a 422-style violation', async () => {
    await expect(evaluateDataset(recorder().rpc, target, { prompt: 'x' }, 'r')).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ loc: ['body'] }],
    });
  });
});
