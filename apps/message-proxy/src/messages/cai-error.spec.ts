import { scannerResultRecord } from '@bastion/testing';
import { caiError } from './guarded-exchange';

describe('caiError', () => {
  it("shows each scanner result with the spec's whole version meta, from what a record keeps of it", () => {
    const result = scannerResultRecord({
      scannerId: 's1',
      outcome: 'failed',
      message: 'card number',
      customConfig: true,
      scannerVersionMeta: { id: 'v1', name: 'cards', published: true, direction: 'both' },
    });
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
