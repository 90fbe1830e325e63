import { DomainError } from '@bastion/contracts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))$/;

/**
 * Reads `configAt`: an ISO 8601 instant. A date alone means its midnight UTC; a date-time needs `Z`
 * or an offset (a local time names no instant). A space where the offset's sign should be is read
 * as `+`: it is what an unencoded `+` in a query string turns into. Anything else is a 400.
 */
export function parseConfigAt(value: string): Date {
  const invalid = () =>
    DomainError.invalid(
      `configAt must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z (got ${JSON.stringify(value)})`,
    );
  const date = DATE.exec(value);
  const dt = date ? null : DATE_TIME.exec(value);
  if (!date && !dt) throw invalid();
  const [y, mo, d] = (date ?? dt!).slice(1, 4).map(Number);
  const [h, mi, s] = dt ? [Number(dt[4]), Number(dt[5]), Number(dt[6] ?? 0)] : [0, 0, 0];
  const ms = dt?.[7] ? Number(dt[7].slice(0, 3).padEnd(3, '0')) : 0;
  const utc = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const check = new Date(utc);
  if (
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59
  )
    throw invalid();
  let offsetMinutes = 0;
  if (dt && !dt[8]) {
    const oh = Number(dt[10]);
    const om = Number(dt[11]);
    if (oh > 23 || om > 59) throw invalid();
    offsetMinutes = (dt[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return new Date(utc - offsetMinutes * 60_000);
}

export interface Revision {
  validFrom: Date;
  revision: number;
}

/**
 * The config in force at `at`: the latest revision that took effect at or before it (the higher
 * revision when two took effect in the same millisecond). Undefined before the first.
 */
export function revisionAt<R extends Revision>(revisions: readonly R[], at: Date): R | undefined {
  let found: R | undefined;
  for (const r of revisions) {
    if (r.validFrom.getTime() > at.getTime()) continue;
    if (
      !found ||
      r.validFrom.getTime() > found.validFrom.getTime() ||
      (r.validFrom.getTime() === found.validFrom.getTime() && r.revision > found.revision)
    )
      found = r;
  }
  return found;
}

/**
 * When a new revision takes effect: now, or just after the previous one if a clock (of another
 * replica) is behind, so revisions never go back in time and `configAt` finds each of them.
 */
export function nextValidFrom(now: Date, previous: Date | null): Date {
  if (!previous || now.getTime() > previous.getTime()) return now;
  return new Date(previous.getTime() + 1);
}
