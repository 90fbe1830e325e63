import RE2 from 're2';
import { analysePattern, PATTERN_PROGRAM_LIMIT, SCANNER_PROGRAM_LIMIT } from '../bounds/pattern-analysis';
import { canonicalizePattern, hiddenControlIn } from '../canonical/canonicalize-pattern';
import { PACKAGE_DETECTORS, type PackageId } from '../packages/built-in-packages';
import { type ConfigProblem, ScannerConfigError } from './config-problem';
import { SCANNER_TYPES, type ScannerConfig, type ScannerType } from './scanner-config';
import { MAX_KEYWORD_LENGTH, MAX_KEYWORDS, MAX_PATTERN_LENGTH, MAX_PATTERNS } from './scanner-limits';
import { findUnsupportedSyntax } from './unsupported-syntax';

type Fields = Record<string, unknown>;

const problem = (loc: (string | number)[], msg: string, type: string): ConfigProblem => ({
  loc: loc.map(String),
  msg,
  type,
});

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ValidateOptions {
  /**
   * Compile each regex pattern with RE2 to catch what only RE2 refuses (default true). The
   * compiler passes false: it compiles the patterns itself and reports RE2's refusal the same way,
   * so a pattern is compiled once, not twice.
   */
  readonly compile?: boolean;
}

/**
 * Everything wrong with a scanner config as a client sent it, empty when it can be saved and
 * compiled. Regex patterns are checked against the program-size budget (PATTERN_PROGRAM_LIMIT,
 * SCANNER_PROGRAM_LIMIT) without compiling, then compiled with RE2, so a pattern that would fail
 * or be too costly at scan time is refused when the scanner is saved (the service answers 422
 * with these as `detail`, each naming its pattern).
 */
export function validateScannerConfig(input: unknown, options: ValidateOptions = {}): ConfigProblem[] {
  const compile = options.compile ?? true;
  if (!isFields(input)) return [problem([], 'Input should be an object', 'dict_type')];
  const type = input.type;
  if (type === undefined) return [problem(['type'], 'Field required', 'missing')];
  if (typeof type !== 'string' || !(SCANNER_TYPES as readonly string[]).includes(type)) {
    return [problem(['type'], `Input should be ${SCANNER_TYPES.map((t) => `'${t}'`).join(', ')}`, 'literal_error')];
  }
  switch (type as ScannerType) {
    case 'regex':
      return validateRegex(input, compile);
    case 'keyword':
      return validateKeyword(input);
    case 'pii':
    case 'secrets':
      return validateDetectors(input, type as PackageId);
    case 'custom':
      return [];
  }
}

/** Narrows a config to `ScannerConfig`, or throws a ScannerConfigError listing every problem. */
export function assertScannerConfig(input: unknown): asserts input is ScannerConfig {
  const problems = validateScannerConfig(input);
  if (problems.length > 0) throw new ScannerConfigError(problems);
}

function validateRegex(input: Fields, compile: boolean): ConfigProblem[] {
  const hasOne = input.pattern !== undefined;
  const hasMany = input.patterns !== undefined;
  if (hasOne && hasMany) return [problem([], 'Give either pattern or patterns, not both', 'value_error')];
  if (hasOne) {
    if (typeof input.pattern !== 'string')
      return [problem(['pattern'], 'Input should be a valid string', 'string_type')];
    return patternProblems(input.pattern, ['pattern'], compile, { total: 0 });
  }
  if (!hasMany) return [problem(['patterns'], 'Field required (pattern or patterns)', 'missing')];
  const budget = { total: 0 };
  const problems = listProblems(input.patterns, 'patterns', MAX_PATTERNS, (p, loc) =>
    patternProblems(p, loc, compile, budget),
  );
  if (problems.length === 0 && budget.total > SCANNER_PROGRAM_LIMIT) {
    problems.push(
      problem(
        ['patterns'],
        `Together the patterns compile to about ${budget.total} instructions, over the limit of ${SCANNER_PROGRAM_LIMIT}: split them across scanners or narrow them`,
        'value_error',
      ),
    );
  }
  return problems;
}

/** A pattern as a message may quote it. */
function quote(pattern: string): string {
  return JSON.stringify(pattern.length > 60 ? `${pattern.slice(0, 57)}...` : pattern);
}

function patternProblems(
  pattern: string,
  loc: (string | number)[],
  compile: boolean,
  budget: { total: number },
): ConfigProblem[] {
  if (pattern === '') return [problem(loc, 'A pattern cannot be empty', 'string_too_short')];
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return [problem(loc, `A pattern can be at most ${MAX_PATTERN_LENGTH} characters long`, 'string_too_long')];
  }
  const unsupported = findUnsupportedSyntax(pattern);
  if (unsupported) return [problem(loc, unsupported, 'value_error')];
  // At save only (the compiler passes compile: false): a stored scanner with such a pattern keeps
  // its other patterns working; the one that needs the character just never matches.
  const control = compile ? hiddenControlIn(pattern) : undefined;
  if (control !== undefined) {
    const code = `U+${control.toString(16).toUpperCase().padStart(4, '0')}`;
    return [
      problem(
        loc,
        `The pattern needs the control character ${code}, which scanners never see: they read text as a model does, with control characters that show as nothing (C0 but tab, line breaks and U+001C-U+001F; DEL; C1 but NEL) removed`,
        'value_error',
      ),
    ];
  }
  const { programCost } = analysePattern(pattern);
  budget.total += programCost;
  if (programCost > PATTERN_PROGRAM_LIMIT) {
    return [
      problem(
        loc,
        `The pattern ${quote(pattern)} compiles to about ${programCost} RE2 instructions, over the limit of ${PATTERN_PROGRAM_LIMIT}: use narrower character classes (\\p{L} holds hundreds of ranges) or smaller repetition counts`,
        'value_error',
      ),
    ];
  }
  if (!compile) return [];
  let re: RE2;
  try {
    re = new RE2(canonicalizePattern(pattern), 'u');
  } catch (e) {
    return [problem(loc, `Not a valid RE2 pattern: ${(e as Error).message}`, 'value_error')];
  }
  if (re.test('')) {
    return [problem(loc, 'The pattern matches the empty string, so it would flag every text', 'value_error')];
  }
  return [];
}

function validateKeyword(input: Fields): ConfigProblem[] {
  const problems = listProblems(input.words, 'words', MAX_KEYWORDS, (word, loc) => {
    if (word.trim() === '') return [problem(loc, 'A word cannot be empty or only whitespace', 'string_too_short')];
    if (word.length > MAX_KEYWORD_LENGTH) {
      return [problem(loc, `A word can be at most ${MAX_KEYWORD_LENGTH} characters long`, 'string_too_long')];
    }
    return [];
  });
  for (const flag of ['caseSensitive', 'wholeWord']) {
    if (input[flag] !== undefined && typeof input[flag] !== 'boolean') {
      problems.push(problem([flag], 'Input should be a valid boolean', 'bool_type'));
    }
  }
  return problems;
}

function validateDetectors(input: Fields, pkg: PackageId): ConfigProblem[] {
  if (input.detectors === undefined) return [];
  const known = PACKAGE_DETECTORS[pkg].map((d) => d.id);
  return listProblems(input.detectors, 'detectors', known.length, (id, loc) =>
    known.includes(id)
      ? []
      : [problem(loc, `Unknown detector '${id}'; the ${pkg} package has ${known.join(', ')}`, 'literal_error')],
  );
}

/** A non-empty list of at most `max` strings, each checked by `check`. */
function listProblems(
  value: unknown,
  field: string,
  max: number,
  check: (item: string, loc: (string | number)[]) => ConfigProblem[],
): ConfigProblem[] {
  if (value === undefined) return [problem([field], 'Field required', 'missing')];
  if (!Array.isArray(value)) return [problem([field], 'Input should be a valid list', 'list_type')];
  if (value.length === 0) return [problem([field], 'List should have at least 1 item', 'too_short')];
  if (value.length > max) return [problem([field], `List should have at most ${max} items`, 'too_long')];
  return value.flatMap((item: unknown, i) =>
    typeof item === 'string'
      ? check(item, [field, i])
      : [problem([field, i], 'Input should be a valid string', 'string_type')],
  );
}
