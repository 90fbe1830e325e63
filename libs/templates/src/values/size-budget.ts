import { TemplateError } from '../errors/template-error';

/**
 * A running allowance of characters. Output is charged as it is produced, so an oversized result
 * (say, one large string referenced a thousand times) is refused before it is ever materialised.
 */
export class SizeBudget {
  private used = 0;

  constructor(
    readonly limit: number,
    private readonly what: string,
  ) {}

  charge(size: number): void {
    this.used += size;
    if (this.used > this.limit) {
      throw new TemplateError('limit', `${this.what} would exceed ${this.limit} characters`);
    }
  }
}
