import { getMetadataStorage, IsInt, IsString, registerDecorator, validateSync } from 'class-validator';
import { memoizeValidationMetadata } from './validation-metadata-cache';

class Base {
  @IsString()
  name!: unknown;
}

class Child extends Base {
  @IsInt()
  count!: unknown;
}

const errorsOf = (value: object) =>
  validateSync(value)
    .map((e) => e.property)
    .sort();

describe('memoizeValidationMetadata', () => {
  beforeAll(() => {
    memoizeValidationMetadata();
    memoizeValidationMetadata(); // a second call changes nothing
  });

  it('validates as before, inherited rules included', () => {
    expect(errorsOf(Object.assign(new Child(), { name: 'a', count: 1 }))).toEqual([]);
    expect(errorsOf(Object.assign(new Child(), { name: 1, count: 'x' }))).toEqual(['count', 'name']);
    expect(errorsOf(Object.assign(new Base(), { name: 2 }))).toEqual(['name']);
  });

  it('answers the same lookup from memory', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(first);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false, ['g'])).not.toBe(first);
  });

  it('sees a rule registered after a lookup', () => {
    expect(errorsOf(Object.assign(new Base(), { name: 'ok', extra: 'no' }))).toEqual([]);
    registerDecorator({ target: Base, propertyName: 'extra', validator: { validate: (v: unknown) => v === 'yes' } });
    expect(errorsOf(Object.assign(new Base(), { name: 'ok', extra: 'no' }))).toEqual(['extra']);
    expect(errorsOf(Object.assign(new Child(), { name: 'ok', count: 1, extra: 'no' }))).toEqual(['extra']);
  });
});
