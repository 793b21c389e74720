import { describe, expect, it } from 'vitest';
import type { StdioLine } from '../../types.js';
import { lineFindings } from './lines.js';

/** Lines as the wire hands them over: `json` parsed without one BOM and one trailing CR. */
function lines(...raws: string[]): StdioLine[] {
  return raws.map((raw, i) => {
    let json: unknown;
    try {
      json = JSON.parse(raw.replace(/^\uFEFF/, '').replace(/\r$/, ''));
    } catch {
      json = undefined;
    }
    return { raw, ...(json === undefined ? {} : { json }), atMs: i };
  });
}

const INIT = '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}';
const PONG = '{"jsonrpc":"2.0","id":"7","result":{}}';
const LOG = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}';

describe('lineFindings', () => {
  it('clean lines (responses, notifications, a batch) give nothing', () => {
    expect(lineFindings(lines(INIT, LOG, PONG, `[${PONG}]`))).toEqual([]);
  });

  it('a banner before the first answer is found and quoted', () => {
    expect(lineFindings(lines('Server ready on stdio', INIT))).toEqual([
      {
        id: 'stdio.stdout-not-protocol',
        observation: { message: 'stdout line 1, before the first answer, is not a JSON-RPC message: "Server ready on stdio"', evidence: ['stdout line 1: "Server ready on stdio"'] },
      },
    ]);
  });

  it('a log line after answers is found with its position; every such line counted, three quoted', () => {
    const found = lineFindings(lines(INIT, PONG, '[info] client connected', '', 'x', '{"level":"info","msg":"json log"}', PONG));
    expect(found).toEqual([
      {
        id: 'stdio.stdout-not-protocol',
        observation: {
          message: 'stdout line 3, after 2 answers, is not a JSON-RPC message: "[info] client connected" (4 such lines in all)',
          evidence: ['stdout line 3: "[info] client connected"', 'stdout line 4: ""', 'stdout line 5: "x"', '… 1 more'],
        },
      },
    ]);
  });

  it('a blank line is called empty; JSON that is not JSON-RPC is not a message', () => {
    expect(lineFindings(lines(INIT, ''))[0]!.observation.message).toBe('stdout line 2, after 1 answer, is empty');
    expect(lineFindings(lines('{"level":"info"}', INIT))[0]!.observation.message).toBe('stdout line 1, before the first answer, is not a JSON-RPC message: "{\\"level\\":\\"info\\"}"');
  });

  it('CR LF and a BOM are each their own finding; the line is still a message', () => {
    expect(lineFindings(lines(`\uFEFF${INIT}`, `${PONG}\r`))).toEqual([
      { id: 'stdio.crlf-line-endings', observation: { message: '1 line of 2 on stdout end with CR LF, not LF alone', evidence: ['stdout line 2: "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":\\"7\\",\\"result\\":{}}\\r"'] } },
      { id: 'stdio.bom', observation: { message: '1 line on stdout start with a UTF-8 byte order mark (EF BB BF), the first is line 1', evidence: [`stdout line 1: "\\ufeff${JSON.stringify(INIT).slice(1)}`] } },
    ]);
  });
});
