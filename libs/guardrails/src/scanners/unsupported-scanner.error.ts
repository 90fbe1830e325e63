/** Thrown when asked to compile a scanner type that has no engine here (`custom`, judged by a model). */
export class UnsupportedScannerError extends Error {
  constructor(readonly type: string) {
    super(`Scanners of type '${type}' are judged by a model and have no engine in @bastion/guardrails`);
    this.name = 'UnsupportedScannerError';
  }
}
