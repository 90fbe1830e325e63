import { isDatabaseUnavailable } from './prisma-errors';

describe('isDatabaseUnavailable', () => {
  it('recognises an unreachable database in each form Prisma, its adapter and pg report it', () => {
    expect(isDatabaseUnavailable({ code: 'P1001', message: "Can't reach database server" })).toBe(true);
    expect(
      isDatabaseUnavailable({
        code: 'P2010',
        message: 'Raw query failed',
        meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable' } } },
      }),
    ).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isDatabaseUnavailable({ code: '57P01', message: 'terminating connection due to administrator command' }),
    ).toBe(true);
    expect(isDatabaseUnavailable({ code: '57P03', message: 'the database system is starting up' })).toBe(true);
    expect(
      isDatabaseUnavailable(
        new Error('wrapped', {
          cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        }),
      ),
    ).toBe(true);
  });

  it('leaves query errors and bugs alone', () => {
    expect(isDatabaseUnavailable({ code: 'P2002', message: 'Unique constraint failed' })).toBe(false);
    expect(
      isDatabaseUnavailable({
        code: 'P2010',
        meta: { driverAdapterError: { cause: { kind: 'UniqueConstraintViolation' } } },
        message: 'x',
      }),
    ).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
