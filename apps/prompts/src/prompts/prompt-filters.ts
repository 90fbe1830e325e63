import { DomainError, type FieldViolation, PROMPT_OUTCOMES, type PromptOutcome } from '@bastion/contracts';

/** The list filters, checked: what the repository turns into a `where`. */
export interface PromptFilter {
  projectId?: string;
  outcomes?: PromptOutcome[];
  /** Exclusive bounds on receivedAt. */
  after?: Date;
  before?: Date;
}

export interface RawPromptFilter {
  projectId?: string;
  /** Each item may itself be comma-separated (`?outcomes=a,b` or `?outcomes=a&outcomes=b`). */
  outcomes?: string[];
  after?: string;
  before?: string;
}

/**
 * ISO 8601 date or date-time: `2026-01-31`, `2026-01-31T10:00`, `2026-01-31T10:00:00.5Z`,
 * `...+02:00`. A time without a zone is UTC. A space before the offset is read as `+`: an unencoded
 * `+` in a query string arrives as a space.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))?)?$/;

/** The instant an ISO 8601 text names, or undefined when it is not one (or names no real day). */
export function parseTimestamp(text: string): Date | undefined {
  const m = ISO_8601.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', , sign, oh = '0', om = '0'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || Number(oh) > 23 || Number(om) > 59)
    return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 31 February over into March: a day the month does not have is refused.
  if (new Date(utc).getUTCDate() !== day) return undefined;
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) : 0;
  return new Date(utc - offsetMinutes * 60_000);
}

/** Checks the list filters; every bad parameter is named in one 422. */
export function parsePromptFilters(raw: RawPromptFilter): PromptFilter {
  const violations: FieldViolation[] = [];
  const filter: PromptFilter = {};
  if (raw.projectId) filter.projectId = raw.projectId;

  const outcomes = [
    ...new Set(
      (raw.outcomes ?? [])
        .flatMap((o) => o.split(','))
        .map((o) => o.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const unknown = outcomes.filter((o) => !(PROMPT_OUTCOMES as readonly string[]).includes(o));
  if (unknown.length) {
    violations.push({
      loc: ['query', 'outcomes'],
      msg: `unknown outcome ${unknown.map((o) => `"${o}"`).join(', ')}; expected ${PROMPT_OUTCOMES.join(', ')}`,
      type: 'value_error.outcome',
    });
  } else if (outcomes.length) {
    filter.outcomes = outcomes as PromptOutcome[];
  }

  for (const name of ['after', 'before'] as const) {
    const text = raw[name];
    if (text === undefined || text === '') continue;
    const at = parseTimestamp(text);
    if (at) filter[name] = at;
    else
      violations.push({
        loc: ['query', name],
        msg: `"${text}" is not an ISO 8601 date or date-time`,
        type: 'value_error.datetime',
      });
  }
  if (filter.after && filter.before && filter.after >= filter.before) {
    violations.push({ loc: ['query', 'after'], msg: 'after must be earlier than before', type: 'value_error.range' });
  }

  if (violations.length)
    throw DomainError.invalid(violations.map((v) => `${v.loc[1]}: ${v.msg}`).join('; '), violations);
  return filter;
}
