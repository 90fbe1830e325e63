import { ValidationOptions, registerDecorator } from 'class-validator';

/** A JSON object whose values are all strings (labels, annotations). */
export function IsStringMap(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isStringMap',
      target: target.constructor,
      propertyName: propertyName.toString(),
      options: { message: `${propertyName.toString()} must be an object of string values`, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.values(value).every((v) => typeof v === 'string'),
      },
    });
}
