import { parse } from 'csv-parse/sync';

/** One labelled prompt of a dataset, with the line it starts on (1-based, counting the header). */
export interface LabelledRow {
  line: number;
  prompt: string;
  /** true: the scanner should block (trigger on) this prompt. */
  label: boolean;
}

/** What is wrong with a dataset, and on which line when one line is to blame. */
export class DatasetError extends Error {
  constructor(
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(line === null ? reason : `line ${line}: ${reason}`);
    this.name = 'DatasetError';
  }
}

/** Bounds the work of one evaluation (about 2 s of scanning for the largest, on one core). */
export const MAX_DATASET_ROWS = 250_000;

const LABELS: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };

/**
 * Reads a `prompt,label` CSV (RFC 4180: quoted fields may hold commas, quotes and newlines). A first
 * row naming `prompt` and `label` is a header and may place them in any column among others;
 * without one, rows are exactly `prompt,label`. Labels are true/1 (should block) or false/0, in any
 * case. Blank lines are skipped; a UTF-8 byte order mark is dropped.
 */
export function parseLabelledCsv(text: string, maxRows = MAX_DATASET_ROWS): LabelledRow[] {
  const rows: LabelledRow[] = [];
  let columns: { prompt: number; label: number; count: number } | undefined;
  let lastEnd = 0;
  let lastEmpty = 0;
  try {
    parse(text, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      // Files edited on several systems mix line endings.
      record_delimiter: ['\r\n', '\n', '\r'],
      on_record: (record: string[], ctx: { lines: number; empty_lines: number }) => {
        const line = lastEnd + 1 + (ctx.empty_lines - lastEmpty);
        lastEnd = ctx.lines;
        lastEmpty = ctx.empty_lines;
        if (!columns) {
          const names = record.map((c) => c.trim().toLowerCase());
          if (names.includes('prompt') && names.includes('label')) {
            columns = { prompt: names.indexOf('prompt'), label: names.indexOf('label'), count: record.length };
            return null;
          }
          columns = { prompt: 0, label: 1, count: 2 };
        }
        if (record.length !== columns.count) {
          const hint = record.length > columns.count ? '; quote a prompt that holds a comma' : '';
          throw new DatasetError(line, `expected ${columns.count} fields, found ${record.length}${hint}`);
        }
        const raw = record[columns.label].trim();
        const label = LABELS[raw.toLowerCase()];
        if (label === undefined)
          throw new DatasetError(line, `the label must be true, false, 1 or 0, not ${JSON.stringify(raw)}`);
        if (rows.length === maxRows) throw new DatasetError(line, `a dataset holds at most ${maxRows} rows`);
        rows.push({ line, prompt: record[columns.prompt], label });
        return null;
      },
    });
  } catch (err) {
    if (err instanceof DatasetError) throw err;
    throw csvError(err, lastEnd + 1);
  }
  if (rows.length === 0) throw new DatasetError(null, 'the CSV has no labelled rows');
  return rows;
}

/** csv-parse's errors, reworded, at the line that holds the problem. */
function csvError(err: unknown, recordStart: number): DatasetError {
  const e = err as { code?: string; lines?: number; message?: string };
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new DatasetError(recordStart, 'a quoted field is never closed');
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return new DatasetError(
        e.lines ?? recordStart,
        'a closing quote must end its field (write a quote inside a quoted field as "")',
      );
    default:
      return new DatasetError(
        typeof e.lines === 'number' ? e.lines : null,
        `malformed CSV: ${e.message ?? String(err)}`,
      );
  }
}
