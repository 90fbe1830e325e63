import { DomainError } from '@bastion/contracts';
import { parseSelector, type Selector, SelectorSyntaxError } from '../domain/label-selector';

/** Parses a `label_filter` query parameter; a malformed selector is a 400 naming the problem. */
export function parseLabelFilter(filter: string | undefined): Selector {
  if (!filter) return [];
  try {
    return parseSelector(filter);
  } catch (err) {
    if (err instanceof SelectorSyntaxError) {
      throw DomainError.invalid(`invalid label_filter: ${err.message}`, [
        { loc: ['query', 'label_filter'], msg: err.message, type: 'selector' },
      ]);
    }
    throw err;
  }
}
