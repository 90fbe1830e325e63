import { TemplateError, type TemplateErrorCode, type TemplatePathSegment } from '../errors/template-error';
import type { TemplateLimits } from '../limits/template-limits';
import { validateTemplate } from '../template/validate-template';

/** Bounds on a workflow template: how much one provider call may fan out into. */
export const WORKFLOW_LIMITS = Object.freeze({
  maxStages: 10,
  maxAttempts: 10,
  /** Seconds one backoff may wait; a longer one is cut to this. */
  maxBackoffSeconds: 60,
  /** Seconds a request's or the workflow's `timeout` may say. */
  maxTimeoutSeconds: 600,
});

/** Names a stage output may not take: the fixed scope names and the retry's `attempt`. */
export const RESERVED_STAGE_OUTPUTS: readonly string[] = ['prompt', 'messages', 'response', 'attempt'];

const REQUEST_KEYS = new Set([
  'type',
  'method',
  'url',
  'headers',
  'queryParams',
  'body',
  'json',
  'timeout',
  'awsAuth',
  'ociAuth',
  'outputs',
]);
const RETRY_KEYS = new Set(['type', 'attempts', 'backoff', 'when', 'block']);
const WORKFLOW_KEYS = new Set(['type', 'stages', 'outputs', 'timeout']);

export interface ProviderTemplateCheck {
  /** The provider's input and secret names (and a system provider's declared secrets). */
  knownNames: Iterable<string>;
  limits?: Partial<TemplateLimits>;
}

/**
 * Every problem in a provider template that can be found before it runs. A `request` template is
 * checked as a template (its outline is the API's to check); a `workflow` also has its structure
 * checked, stage by stage: each problem names the stage (`stage 2 (retry): ...`) and its place
 * (`loc` from the template's root, e.g. `['stages', 1, 'block', 'headers', 'Authorization']`).
 * Names read by a stage must be inputs, secrets, built-ins, or outputs of an earlier stage.
 */
export function validateProviderTemplate(template: unknown, options: ProviderTemplateCheck): TemplateError[] {
  const base = [...options.knownNames];
  if (!isRecord(template) || template.type !== 'workflow') {
    return validateTemplate(template, { knownNames: base, limits: options.limits });
  }
  return new WorkflowCheck(base, options.limits).run(template);
}

class WorkflowCheck {
  readonly errors: TemplateError[] = [];
  private readonly baseNames: Set<string>;

  constructor(
    base: string[],
    private readonly limits: Partial<TemplateLimits> | undefined,
  ) {
    this.baseNames = new Set(base);
  }

  run(workflow: Record<string, unknown>): TemplateError[] {
    this.unknownKeys(workflow, WORKFLOW_KEYS, [], 'the workflow');
    this.timeout(workflow.timeout, ['timeout'], 'the workflow');
    const known = new Set(this.baseNames);
    const stages = workflow.stages;
    if (!Array.isArray(stages) || stages.length === 0) {
      this.fail('type', 'the workflow', 'stages must be a non-empty list', ['stages']);
    } else if (stages.length > WORKFLOW_LIMITS.maxStages) {
      this.fail('limit', 'the workflow', `at most ${WORKFLOW_LIMITS.maxStages} stages`, ['stages']);
    } else {
      stages.forEach((stage, i) => {
        for (const name of this.stage(stage, i, known)) known.add(name);
      });
    }
    const outputs = workflow.outputs;
    if (!isRecord(outputs) || !('content' in outputs)) {
      this.fail('type', 'the workflow', 'outputs must be an object that yields content', ['outputs']);
    } else {
      this.expressions(outputs, ['outputs'], 'the workflow', [...known, 'response']);
    }
    return this.errors;
  }

  /** Checks one stage; returns the names its outputs bring into scope. */
  private stage(stage: unknown, i: number, known: ReadonlySet<string>): string[] {
    const path: TemplatePathSegment[] = ['stages', i];
    const type = isRecord(stage) ? stage.type : undefined;
    const label = `stage ${i + 1}${typeof type === 'string' ? ` (${type})` : ''}`;
    if (!isRecord(stage)) {
      this.fail('type', label, 'a stage must be an object', path);
      return [];
    }
    if (type === 'request') return this.request(stage, path, label, [...known]);
    if (type === 'retry') return this.retry(stage, path, label, known);
    this.fail('type', label, 'type must be "request" or "retry"', [...path, 'type']);
    return [];
  }

  private retry(
    stage: Record<string, unknown>,
    path: TemplatePathSegment[],
    label: string,
    known: ReadonlySet<string>,
  ): string[] {
    this.unknownKeys(stage, RETRY_KEYS, path, label);
    const attempts = stage.attempts;
    if (
      typeof attempts !== 'number' ||
      !Number.isInteger(attempts) ||
      attempts < 1 ||
      attempts > WORKFLOW_LIMITS.maxAttempts
    ) {
      this.fail('type', label, `attempts must be a whole number from 1 to ${WORKFLOW_LIMITS.maxAttempts}`, [
        ...path,
        'attempts',
      ]);
    }
    const inside = [...known, 'attempt'];
    let outputs: string[] = [];
    if (!isRecord(stage.block)) {
      this.fail('type', label, 'block must be a request', [...path, 'block']);
    } else if (stage.block.type !== 'request') {
      this.fail('type', label, 'block must be a request (type "request")', [...path, 'block', 'type']);
    } else {
      outputs = this.request(stage.block, [...path, 'block'], label, inside);
    }
    const after = [...inside, ...outputs];
    if (stage.backoff !== undefined) {
      if (typeof stage.backoff === 'number') {
        if (!(stage.backoff >= 0))
          this.fail('type', label, 'backoff must be a number of seconds, 0 or more', [...path, 'backoff']);
      } else if (typeof stage.backoff === 'string') {
        this.expressions(stage.backoff, [...path, 'backoff'], label, after);
      } else {
        this.fail('type', label, 'backoff must be a number of seconds or an expression', [...path, 'backoff']);
      }
    }
    if (stage.when !== undefined) {
      if (typeof stage.when !== 'string')
        this.fail('type', label, 'when must be an expression such as "{{ statusCode >= 500 }}"', [...path, 'when']);
      else this.expressions(stage.when, [...path, 'when'], label, [...after, 'response']);
    }
    return outputs;
  }

  /** A request stage (or a retry's block); returns its output names. */
  private request(
    stage: Record<string, unknown>,
    path: TemplatePathSegment[],
    label: string,
    known: string[],
  ): string[] {
    this.unknownKeys(stage, REQUEST_KEYS, path, label);
    if (typeof stage.url !== 'string' || stage.url === '')
      this.fail('type', label, 'url must be a non-empty string', [...path, 'url']);
    if (stage.method !== undefined && (typeof stage.method !== 'string' || stage.method === ''))
      this.fail('type', label, 'method must be a string', [...path, 'method']);
    for (const key of ['headers', 'queryParams'] as const) {
      const v = stage[key];
      if (v !== undefined && (!isRecord(v) || Object.values(v).some((x) => typeof x !== 'string'))) {
        this.fail('type', label, `${key} must map names to strings`, [...path, key]);
      }
    }
    if (stage.body !== undefined && typeof stage.body !== 'string')
      this.fail('type', label, 'body must be a string (use json for JSON)', [...path, 'body']);
    for (const key of ['awsAuth', 'ociAuth'] as const) {
      if (stage[key] !== undefined && !isRecord(stage[key]))
        this.fail('type', label, `${key} must be an object`, [...path, key]);
    }
    this.timeout(stage.timeout, [...path, 'timeout'], label);
    const { outputs, ...requestPart } = stage;
    this.expressions(requestPart, path, label, known);
    if (outputs === undefined) return [];
    if (!isRecord(outputs)) {
      this.fail('type', label, 'outputs must be an object of names to expressions', [...path, 'outputs']);
      return [];
    }
    this.expressions(outputs, [...path, 'outputs'], label, [...known, 'response']);
    const names = Object.keys(outputs);
    for (const name of names) {
      if (RESERVED_STAGE_OUTPUTS.includes(name) || this.baseNames.has(name)) {
        this.fail('scope', label, `the output "${name}" would hide the scope name "${name}"`, [
          ...path,
          'outputs',
          name,
        ]);
      }
    }
    return names;
  }

  private timeout(value: unknown, loc: TemplatePathSegment[], label: string): void {
    if (value === undefined) return;
    if (typeof value !== 'number' || !(value >= 0.1) || value > WORKFLOW_LIMITS.maxTimeoutSeconds) {
      this.fail(
        'type',
        label,
        `timeout must be a number of seconds from 0.1 to ${WORKFLOW_LIMITS.maxTimeoutSeconds}`,
        loc,
      );
    }
  }

  private unknownKeys(
    value: Record<string, unknown>,
    allowed: ReadonlySet<string>,
    path: TemplatePathSegment[],
    label: string,
  ): void {
    for (const key of Object.keys(value)) {
      if (!allowed.has(key))
        this.fail('type', label, `unknown field "${key}" (allowed: ${[...allowed].join(', ')})`, [...path, key]);
    }
  }

  /** The placeholders of `value`, with names checked against `known`; errors say which stage. */
  private expressions(value: unknown, path: TemplatePathSegment[], label: string, known: string[]): void {
    for (const e of validateTemplate(value, { knownNames: known, limits: this.limits, path })) {
      this.errors.push(
        new TemplateError(e.code, `${label}: ${e.reason}`, {
          placeholder: e.placeholder,
          position: e.position,
          expressionOffset: e.expressionOffset,
          loc: e.loc,
        }),
      );
    }
  }

  private fail(code: TemplateErrorCode, label: string, reason: string, loc: TemplatePathSegment[]): void {
    this.errors.push(new TemplateError(code, `${label}: ${reason}`, { loc }));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
