import { ProxyBulkRpc, ProxyBulkStreams, ProxyRpc, ProxyStreams } from '@bastion/contracts';
import { loadConfig } from '@bastion/platform';
import { waitFor } from '@bastion/testing';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { laneFilter, laneNice, ProxyConfig } from './config';
import { enterIdleClass, schedulingPolicy } from './idle-class';

describe('proxy lanes', () => {
  const standard = [...Object.values(ProxyRpc), ...Object.values(ProxyStreams)].map((c) => c.subject);
  const bulk = [...Object.values(ProxyBulkRpc), ...Object.values(ProxyBulkStreams)].map((c) => c.subject);

  it('gives every text-carrying request a bulk twin that falls back to it', () => {
    expect(bulk).toHaveLength(6);
    for (const c of [...Object.values(ProxyBulkRpc), ...Object.values(ProxyBulkStreams)]) {
      expect(c.subject.startsWith('proxy.bulk.')).toBe(true);
      expect(standard).toContain(c.orElse);
    }
  });

  it('answers the bulk lane alone, everything but it, or everything', () => {
    expect(standard.filter(laneFilter('bulk'))).toEqual([]);
    expect(bulk.filter(laneFilter('bulk'))).toEqual(bulk);
    expect(standard.filter(laneFilter('standard'))).toEqual(standard);
    expect(bulk.filter(laneFilter('standard'))).toEqual([]);
    expect([...standard, ...bulk].filter(laneFilter('all'))).toHaveLength(standard.length + bulk.length);
  });

  it('runs the bulk lane below the default CPU priority unless told otherwise', () => {
    const nice = (env: Record<string, string>) => laneNice(loadConfig(ProxyConfig, env));
    expect(nice({ PROXY_LANE: 'bulk' })).toBe(15);
    expect(nice({ PROXY_LANE: 'bulk', PROXY_NICE: '0' })).toBe(0);
    expect(nice({ PROXY_LANE: 'standard' })).toBe(0);
    expect(nice({})).toBe(0);
    expect(nice({ PROXY_LANE: 'all', PROXY_NICE: '5' })).toBe(5);
  });

  it('moves every thread of a process, and those it makes later, to SCHED_IDLE', async () => {
    // A Node process with worker threads of its own, one started after the move.
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const { Worker } = require('node:worker_threads');
         const park = 'setInterval(() => {}, 1000)';
         process.stdin.once('data', () => { new Worker(park, { eval: true }); process.stdout.write('ok'); });
         new Worker(park, { eval: true });
         process.stdout.write('ready');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const said = (word: string, ms: number) =>
      waitFor(() => (out.includes(word) ? true : undefined), ms, `the child's "${word}"`);
    try {
      // Its first worker thread exists (a Worker's thread starts in its constructor) before the
      // move, the second is made after it.
      await said('ready', 15_000);
      const pid = child.pid!;
      expect(schedulingPolicy(pid)).toBe('normal');
      enterIdleClass(pid);
      child.stdin!.write('go');
      // In the idle class the child runs only when the CPUs have nothing else to do: on a busy
      // machine, seconds.
      await said('ok', 45_000);
      const threads = readdirSync(`/proc/${pid}/task`).map(Number);
      expect(threads.length).toBeGreaterThan(3);
      expect(threads.map((tid) => schedulingPolicy(pid, tid))).toEqual(threads.map(() => 'idle'));
    } finally {
      child.kill();
    }
  }, 70_000);
});
