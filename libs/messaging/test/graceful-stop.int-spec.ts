import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * A graceful stop ends the process by raising its signal again, which runs no exit hooks: the
 * buffered log lines must still come out, the last one (`stopped`) included. Runs the built libs
 * (`pnpm test` builds first) in a child process that stops itself with SIGTERM.
 */
describe('stopOnSignals and the buffered logger', () => {
  it('writes every log line before the process ends on its signal', () => {
    const libs = join(__dirname, '..', '..');
    const script = `
      const { createLogger } = require(${JSON.stringify(join(libs, 'observability/dist/index.js'))});
      const { stopOnSignals } = require(${JSON.stringify(join(libs, 'messaging/dist/index.js'))});
      const logger = createLogger('stop-test', 'info');
      logger.info('before');
      stopOnSignals(async () => logger.info('closing'), logger, 1000);
      setInterval(() => {}, 1000);
      setTimeout(() => process.kill(process.pid, 'SIGTERM'), 100);
    `;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10_000 });
    expect(child.signal).toBe('SIGTERM');
    const messages = child.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(['before', 'stopping: readiness is 503, draining', 'closing', 'stopped']);
  });
});
