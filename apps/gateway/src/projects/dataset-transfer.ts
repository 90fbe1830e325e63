import { createHash, randomUUID } from 'node:crypto';
import {
  DATASET_MAX_BYTES,
  DATASET_PART_BYTES,
  type DatasetRunView,
  DomainError,
  type Principal,
  ScannerRpc,
} from '@bastion/contracts';
import type { NatsRpcClient } from '@bastion/messaging';

/** Parts staged at once. */
const CONCURRENCY = 4;

/** A CSV cut into base64 parts of at most DATASET_PART_BYTES bytes each, with its size and SHA-256. */
export function datasetParts(csv: string): { bytes: number; sha256: string; parts: string[] } {
  const buf = Buffer.from(csv, 'utf8');
  const parts: string[] = [];
  for (let at = 0; at < buf.length || parts.length === 0; at += DATASET_PART_BYTES) {
    parts.push(buf.subarray(at, at + DATASET_PART_BYTES).toString('base64'));
  }
  return { bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex'), parts };
}

/**
 * Sends a dataset to be evaluated. NATS messages are capped (1 MB by default), so a CSV larger than
 * one part is staged part by part (the service keeps the parts in Postgres, where any replica finds
 * them) and the evaluation names the upload, its size and checksum. A small one travels inline.
 */
export async function evaluateDataset(
  rpc: NatsRpcClient,
  target: { principal: Principal; scannerId: string; versionRef: string },
  csv: unknown,
  requestId: string,
): Promise<{ datasetRun: DatasetRunView }> {
  if (typeof csv !== 'string') {
    throw DomainError.invalid('the dataset is the request body, a CSV sent as text/csv', [
      { loc: ['body'], msg: 'expected a text/csv body (prompt,label rows)', type: 'type_error' },
    ]);
  }
  const { bytes, sha256, parts } = datasetParts(csv);
  if (bytes > DATASET_MAX_BYTES) throw DomainError.invalid(`a dataset is at most ${DATASET_MAX_BYTES} bytes`);
  if (parts.length === 1) return rpc.call(ScannerRpc.evaluate, { ...target, data: parts[0] }, requestId);
  const uploadId = randomUUID();
  for (let first = 0; first < parts.length; first += CONCURRENCY) {
    await Promise.all(
      parts
        .slice(first, first + CONCURRENCY)
        .map((data, i) =>
          rpc.call(
            ScannerRpc.stageDataset,
            { principal: target.principal, uploadId, part: first + i, data },
            requestId,
          ),
        ),
    );
  }
  return rpc.call(
    ScannerRpc.evaluate,
    { ...target, upload: { id: uploadId, parts: parts.length, bytes, sha256 } },
    requestId,
  );
}
