import { getMetadataStorage, IsString, MaxLength, validate } from 'class-validator';
import { cacheValidationMetadata } from './validation';

class Named {
  @MaxLength(3)
  @IsString()
  name!: unknown;
}

class Later {
  name!: unknown;
}

const errorsOf = async (value: object) =>
  (await validate(value)).map((e) => ({ property: e.property, constraints: e.constraints }));

describe('cacheValidationMetadata', () => {
  beforeAll(() => cacheValidationMetadata());

  it('answers what class-validator answers, every time', async () => {
    const long = Object.assign(new Named(), { name: 'four' });
    const expected = [
      { property: 'name', constraints: { maxLength: 'name must be shorter than or equal to 3 characters' } },
    ];
    expect(await errorsOf(long)).toEqual(expected);
    expect(await errorsOf(long)).toEqual(expected);
    expect(await errorsOf(Object.assign(new Named(), { name: 'abc' }))).toEqual([]);
    expect(getMetadataStorage().getTargetValidationMetadatas(Named, '', false, false)).toBe(
      getMetadataStorage().getTargetValidationMetadatas(Named, '', false, false),
    );
  });

  it('sees rules registered after a class was validated', async () => {
    const value = Object.assign(new Later(), { name: 5 });
    expect(await errorsOf(value)).toEqual([
      { property: undefined, constraints: { unknownValue: 'an unknown value was passed to the validate function' } },
    ]);
    IsString()(Later.prototype, 'name');
    expect(await errorsOf(value)).toEqual([{ property: 'name', constraints: { isString: 'name must be a string' } }]);
  });
});
