import type { ScannerResultRecord } from '@bastion/contracts';
import { caiError } from './guarded-exchange';

describe('caiError', () => {
  it("shows each scanner result with the spec's whole version meta, from what a record keeps of it", () => {
    const result: ScannerResultRecord = {
      scannerId: 's1',
      outcome: 'failed',
      scanDirection: 'request',
      data: { type: 'regex', matches: [] },
      message: 'card number',
      customConfig: true,
      startedDate: '2026-03-01T10:00:00.000Z',
      completedDate: '2026-03-01T10:00:00.001Z',
      scannerVersionMeta: { id: 'v1', name: 'cards', published: true, direction: 'both' },
    };
    expect(caiError([result, { ...result, scannerVersionMeta: null }])).toEqual({
      outcome: 'blocked',
      scanner_results: [
        {
          ...result,
          scannerVersionMeta: {
            id: 'v1',
            name: 'cards',
            published: true,
            direction: 'both',
            description: '',
            createdAt: '',
            createdBy: '',
            f1Score: null,
            latestDatasetResult: null,
          },
        },
        { ...result, scannerVersionMeta: null },
      ],
    });
  });
});
