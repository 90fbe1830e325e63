import { createHash } from 'node:crypto';
import { DATASET_MAX_BYTES, DomainError, type StagedDatasetRef } from '@bastion/contracts';

/**
 * Puts a staged dataset back together and checks it is the one the gateway sent: every part, in
 * order, the announced size and SHA-256. A part missing (lost, or cleaned up as stale) is a 400 the
 * client can retry.
 */
export function assembleDataset(
  parts: readonly { part: number; data: Uint8Array }[],
  ref: Pick<StagedDatasetRef, 'parts' | 'bytes' | 'sha256'>,
): Buffer {
  const sorted = [...parts].sort((a, b) => a.part - b.part);
  if (sorted.length !== ref.parts || sorted.some((p, i) => p.part !== i)) {
    throw DomainError.invalid(
      `the dataset upload is incomplete (${sorted.length} of ${ref.parts} parts); send it again`,
    );
  }
  const csv = Buffer.concat(sorted.map((p) => p.data));
  if (
    csv.length !== ref.bytes ||
    csv.length > DATASET_MAX_BYTES ||
    createHash('sha256').update(csv).digest('hex') !== ref.sha256
  ) {
    throw DomainError.invalid('the dataset upload does not match its size or checksum; send it again');
  }
  return csv;
}
