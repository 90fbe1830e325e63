import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Moves every thread of process `pid` to SCHED_IDLE (threads made later inherit it from their
 * maker), with util-linux's chrt: Node has no call for it, and an unprivileged process may take this
 * class for itself. Throws when chrt is missing or refused.
 */
export function enterIdleClass(pid: number): void {
  execFileSync('chrt', ['--idle', '--all-tasks', '--pid', '0', String(pid)], { stdio: 'ignore', timeout: 5000 });
}

/** The scheduling policy of a thread, from /proc (Linux): `idle`, `normal` or another's number. */
export function schedulingPolicy(pid: number, tid = pid): string {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  // The command name (2nd field) may hold spaces: count fields after its closing parenthesis.
  const policy = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
  return policy === 5 ? 'idle' : policy === 0 ? 'normal' : String(policy);
}
