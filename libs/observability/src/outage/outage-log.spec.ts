import type { Logger } from 'pino';
import { OutageLog } from './outage-log';

describe('OutageLog', () => {
  it('logs an outage once, then once per interval with the failures in between', () => {
    const lines: unknown[] = [];
    const logger = { error: (obj: unknown) => lines.push(obj) } as unknown as Logger;
    let t = 0;
    const log = new OutageLog(logger, 1000, () => t);
    for (let i = 0; i < 50; i++) log.report('database', new Error("Can't reach database server"));
    expect(lines).toHaveLength(1);
    t = 1500;
    log.report('database', new Error('x'));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ dependency: 'database', failuresSince: 49 });
  });
});
