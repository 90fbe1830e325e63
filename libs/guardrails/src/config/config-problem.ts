/**
 * One thing wrong with a scanner config, in the shape of a FastAPI validation error item (and of
 * `FieldViolation` in @bastion/contracts): `loc` is the path inside the config, which the service
 * prefixes with where the config sits in the request (`["body", "config", ...]`).
 */
export interface ConfigProblem {
  readonly loc: string[];
  readonly msg: string;
  readonly type: string;
}

export class ScannerConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(
      `Invalid scanner config: ${problems.map((p) => `${[...p.loc].join('.') || '(config)'}: ${p.msg}`).join('; ')}`,
    );
    this.name = 'ScannerConfigError';
  }
}
