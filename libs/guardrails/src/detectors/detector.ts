import type { Confirm } from '../engine/rule-matcher';

/**
 * One kind of sensitive value. RE2 finds candidates quickly and a little too widely; `confirm`
 * does what a regular expression cannot (checksums, numeric ranges, decoding) and may narrow or
 * widen the span.
 */
export interface Detector<Id extends string = string> {
  readonly id: Id;
  readonly name: string;
  readonly description: string;
  /** RE2 syntax. */
  readonly pattern: string;
  readonly confirm?: Confirm;
  /**
   * The longest candidate `pattern` can match, in UTF-16 units, when the pattern alone is
   * unbounded but the detector is not (its confirm refuses longer ones). Unset: worked out from
   * the pattern.
   */
  readonly maxLength?: number;
}
