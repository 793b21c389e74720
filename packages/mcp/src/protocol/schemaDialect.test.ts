import { describe, expect, it } from 'vitest';
import { schemaDraftOf } from './schemaDialect.js';

describe('schemaDraftOf', () => {
  it('names the dialect $schema declares, with or without the trailing #', () => {
    expect(schemaDraftOf({ $schema: 'http://json-schema.org/draft-07/schema#' })).toBe('7');
    expect(schemaDraftOf({ $schema: 'http://json-schema.org/draft-04/schema' })).toBe('4');
    expect(schemaDraftOf({ $schema: 'https://json-schema.org/draft/2019-09/schema' })).toBe('2019-09');
  });

  it('is 2020-12 without $schema, with one the validator does not know, or with one that is not a string', () => {
    expect(schemaDraftOf({})).toBe('2020-12');
    expect(schemaDraftOf({ $schema: 'http://json-schema.org/draft-06/schema#' })).toBe('2020-12');
    expect(schemaDraftOf({ $schema: 7 })).toBe('2020-12');
  });
});
