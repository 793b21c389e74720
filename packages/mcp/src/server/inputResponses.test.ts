/**
 * The answer checks of inputResponses.ts, case by case: each kind of malformed answer to elicitation, sampling and
 * roots is named, and well-formed answers (with `_meta` and members of their own) pass.
 */
import { describe, expect, it } from 'vitest';
import { McpError } from '../protocol/errors.js';
import { answeredRequestOf, checkInputResponse, inputResponseProblem, InvalidInputResponseError } from './inputResponses.js';

const FORM = {
  method: 'elicitation/create',
  params: {
    message: 'Who?',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 5 },
        mail: { type: 'string', format: 'email' },
        day: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri' },
        age: { type: 'integer', minimum: 0, maximum: 150 },
        score: { type: 'number', minimum: 0.5 },
        ok: { type: 'boolean' },
        size: { type: 'string', enum: ['s', 'm'] },
        tone: { type: 'string', oneOf: [{ const: 'warm', title: 'Warm' }, { const: 'cold', title: 'Cold' }] },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1, maxItems: 2 },
        picks: { type: 'array', items: { anyOf: [{ const: 'x' }, { const: 'y' }] } },
      },
      required: ['name'],
    },
  },
} as const;
const CLOSED = { method: 'elicitation/create', params: { message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false } } } as const;
const URL_MODE = { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com' } } as const;
const SAMPLING = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } as const;
const ROOTS = { method: 'roots/list' } as const;

describe('well-formed answers pass', () => {
  it.each([
    ['a full form', FORM, { action: 'accept', content: { name: 'Ada', mail: 'a@b.c', day: '2026-07-28', at: '2026-07-28T10:00:00Z', site: 'https://x.y/z', age: 36, score: 0.5, ok: true, size: 's', tone: 'cold', tags: ['a', 'b'], picks: ['y'] } }],
    ['a decline', FORM, { action: 'decline' }],
    ['a form with a primitive the schema does not name (JSON Schema allows it)', FORM, { action: 'accept', content: { name: 'Ada', response: 'extra' } }],
    ['a cancel with _meta and a member of its own', FORM, { action: 'cancel', _meta: { k: 1 }, extra: 'x' }],
    ['URL mode accepted (consent only)', URL_MODE, { action: 'accept' }],
    ['a sampled text', SAMPLING, { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm', stopReason: 'endTurn' }],
    ['sampled blocks with tool use', SAMPLING, { role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'tool_use', id: '1', name: 't', input: {} }], model: 'm', stopReason: 'toolUse' }],
    ['a sampled image', SAMPLING, { role: 'user', content: { type: 'image', data: 'AA==', mimeType: 'image/png' }, model: 'm' }],
    ['roots', ROOTS, { roots: [{ uri: 'file:///w', name: 'w', _meta: {} }, { uri: 'file:///v' }] }],
    ['no roots', ROOTS, { roots: [] }],
    ['an answer to a method not checked', { method: 'x/y' }, { anything: 1 }],
  ])('%s', (_name, request, response) => {
    expect(inputResponseProblem(request, response)).toBeUndefined();
  });
});

describe('malformed answers are named', () => {
  it.each([
    ['not an object', ROOTS, 'no', 'must be an object'],
    ['an array', SAMPLING, [], 'must be an object'],
    ['_meta not an object', ROOTS, { roots: [], _meta: 1 }, '"_meta" must be an object'],
    ['action outside the enum', FORM, { action: 'maybe' }, '"action" must be "accept", "decline" or "cancel"'],
    ['no action', FORM, { content: { name: 'Ada' } }, '"action" must be "accept", "decline" or "cancel"'],
    ['content with decline', FORM, { action: 'decline', content: { name: 'Ada' } }, '"content" is sent only with "accept", not with "decline"'],
    ['content with cancel', FORM, { action: 'cancel', content: {} }, '"content" is sent only with "accept", not with "cancel"'],
    ['content in URL mode', URL_MODE, { action: 'accept', content: { token: 'x' } }, '"content" is not sent in URL mode'],
    ['content not an object', FORM, { action: 'accept', content: ['Ada'] }, '"content" must be an object'],
    ['a required property missing', FORM, { action: 'accept', content: { age: 3 } }, '"content.name" is required'],
    ['accept without content when a property is required', FORM, { action: 'accept' }, '"content.name" is required'],
    ['a property not asked for, the schema closed', CLOSED, { action: 'accept', content: { name: 'Ada', admin: true } }, '"content.admin" was not asked for'],
    ['a property not asked for that is no primitive', FORM, { action: 'accept', content: { name: 'Ada', extra: { a: 1 } } }, '"content.extra" must be a string, number, boolean or array of strings'],
    ['a nested object', FORM, { action: 'accept', content: { name: { first: 'A' } } }, '"content.name" must be a string, number, boolean or array of strings'],
    ['a string too short', FORM, { action: 'accept', content: { name: 'A' } }, '"content.name" must have at least 2 characters'],
    ['a string too long', FORM, { action: 'accept', content: { name: 'Adaline' } }, '"content.name" must have at most 5 characters'],
    ['a number for a string', FORM, { action: 'accept', content: { name: 12 } }, '"content.name" must be a string'],
    ['a bad email', FORM, { action: 'accept', content: { name: 'Ada', mail: 'nope' } }, '"content.mail" must be in the email format'],
    ['a bad date', FORM, { action: 'accept', content: { name: 'Ada', day: '28/07/2026' } }, '"content.day" must be in the date format'],
    ['a bad date-time', FORM, { action: 'accept', content: { name: 'Ada', at: '2026-07-28' } }, '"content.at" must be in the date-time format'],
    ['a bad uri', FORM, { action: 'accept', content: { name: 'Ada', site: 'no uri' } }, '"content.site" must be in the uri format'],
    ['a fraction for an integer', FORM, { action: 'accept', content: { name: 'Ada', age: 1.5 } }, '"content.age" must be an integer'],
    ['a string for an integer', FORM, { action: 'accept', content: { name: 'Ada', age: '3' } }, '"content.age" must be an integer'],
    ['below the minimum', FORM, { action: 'accept', content: { name: 'Ada', score: 0.1 } }, '"content.score" must be at least 0.5'],
    ['above the maximum', FORM, { action: 'accept', content: { name: 'Ada', age: 151 } }, '"content.age" must be at most 150'],
    ['a string for a boolean', FORM, { action: 'accept', content: { name: 'Ada', ok: 'true' } }, '"content.ok" must be a boolean'],
    ['outside an enum', FORM, { action: 'accept', content: { name: 'Ada', size: 'xl' } }, '"content.size" must be one of the offered values'],
    ['outside a titled enum', FORM, { action: 'accept', content: { name: 'Ada', tone: 'Warm' } }, '"content.tone" must be one of the offered values'],
    ['a multi-select value not offered', FORM, { action: 'accept', content: { name: 'Ada', tags: ['c'] } }, '"content.tags" must hold only the offered values'],
    ['a multi-select of anyOf not offered', FORM, { action: 'accept', content: { name: 'Ada', picks: ['z'] } }, '"content.picks" must hold only the offered values'],
    ['too few items', FORM, { action: 'accept', content: { name: 'Ada', tags: [] } }, '"content.tags" must have at least 1 items'],
    ['too many items', FORM, { action: 'accept', content: { name: 'Ada', tags: ['a', 'b', 'a'] } }, '"content.tags" must have at most 2 items'],
    ['a string for a multi-select', FORM, { action: 'accept', content: { name: 'Ada', tags: 'a' } }, '"content.tags" must be an array of strings'],
    ['no role', SAMPLING, { content: { type: 'text', text: 'x' }, model: 'm' }, '"role" must be "user" or "assistant"'],
    ['a role outside the enum', SAMPLING, { role: 'system', content: { type: 'text', text: 'x' }, model: 'm' }, '"role" must be "user" or "assistant"'],
    ['no model', SAMPLING, { role: 'assistant', content: { type: 'text', text: 'x' } }, '"model" must be a string'],
    ['a stopReason not a string', SAMPLING, { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm', stopReason: 1 }, '"stopReason" must be a string'],
    ['no content', SAMPLING, { role: 'assistant', model: 'm' }, '"content" must be a content block (an object)'],
    ['a text block without text', SAMPLING, { role: 'assistant', content: { type: 'text' }, model: 'm' }, '"content" must have a string "text"'],
    ['an image without data', SAMPLING, { role: 'assistant', content: { type: 'image', mimeType: 'image/png' }, model: 'm' }, '"content" must have string "data" and "mimeType"'],
    ['an unknown block type', SAMPLING, { role: 'assistant', content: { type: 'video' }, model: 'm' }, '"content" must have "type" text, image, audio, tool_use or tool_result'],
    ['a bad block in an array', SAMPLING, { role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'tool_use', id: '1' }], model: 'm' }, '"content[1]" must have string "id" and "name" and an object "input"'],
    ['a tool result without content', SAMPLING, { role: 'assistant', content: [{ type: 'tool_result', toolUseId: '1' }], model: 'm' }, '"content[0]" must have a string "toolUseId" and a "content" array'],
    ['roots not an array', ROOTS, { roots: 5 }, '"roots" must be an array'],
    ['no roots', ROOTS, {}, '"roots" must be an array'],
    ['a root not an object', ROOTS, { roots: ['file:///w'] }, '"roots[0]" must be an object'],
    ['a root without uri', ROOTS, { roots: [{ name: 'w' }] }, '"roots[0].uri" must be a file URI'],
    ['a root that is no file URI', ROOTS, { roots: [{ uri: 'file:///ok' }, { uri: 'https://example.com' }] }, '"roots[1].uri" must be a file URI'],
    ['a root name not a string', ROOTS, { roots: [{ uri: 'file:///w', name: 7 }] }, '"roots[0].name" must be a string'],
    ['a root _meta not an object', ROOTS, { roots: [{ uri: 'file:///w', _meta: 'x' }] }, '"roots[0]._meta" must be an object'],
  ])('%s', (_name, request, response, problem) => {
    expect(inputResponseProblem(request, response)).toBe(problem);
  });
});

describe('InvalidInputResponseError', () => {
  it('is a -32602 McpError naming the answer (its key when modern) and the problem; client input quoted is cut', () => {
    let caught: unknown;
    try {
      checkInputResponse(ROOTS, { roots: 1 }, 'roots-0');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputResponseError);
    expect(caught).toBeInstanceOf(McpError);
    expect((caught as InvalidInputResponseError).toJSON()).toEqual({ code: -32602, message: 'Invalid params: input response "roots-0" (roots/list): "roots" must be an array' });
    expect(caught).toMatchObject({ name: 'InvalidInputResponseError', method: 'roots/list', key: 'roots-0', problem: '"roots" must be an array' });
    const legacy = new InvalidInputResponseError({ method: 'elicitation/create', problem: '"action" must be "accept", "decline" or "cancel"' });
    expect(legacy.message).toBe('Invalid params: the client\'s answer to elicitation/create: "action" must be "accept", "decline" or "cancel"');
    expect(new InvalidInputResponseError({ method: 'roots/list', key: 'k'.repeat(500), problem: 'x' }).message.length).toBeLessThan(260);
    expect(inputResponseProblem(CLOSED, { action: 'accept', content: { name: 'Ada', ['p'.repeat(500)]: 1 } })?.length).toBeLessThan(240);
  });

  it('answeredRequestOf keeps what a check needs: the method, and a form\'s mode and requestedSchema', () => {
    expect(answeredRequestOf(FORM)).toEqual({ method: 'elicitation/create', params: { requestedSchema: FORM.params.requestedSchema } });
    expect(answeredRequestOf(URL_MODE)).toEqual({ method: 'elicitation/create', params: { mode: 'url' } });
    expect(answeredRequestOf(SAMPLING)).toEqual({ method: 'sampling/createMessage' });
    expect(answeredRequestOf(ROOTS)).toEqual({ method: 'roots/list' });
  });
});
