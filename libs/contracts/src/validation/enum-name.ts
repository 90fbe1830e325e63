import { Transform } from 'class-transformer';

/**
 * Enums travel as names, but the token API accepts a name or its number (`"VALID"` or `1`). This
 * turns a known number into its name before validation; anything else is left for `@IsIn` to judge.
 */
export function EnumNameOrNumber(names: Record<number, string>): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value === 'number' && names[value] !== undefined) return names[value];
    if (typeof value === 'string' && /^\d+$/.test(value) && names[Number(value)] !== undefined)
      return names[Number(value)];
    return value;
  });
}
