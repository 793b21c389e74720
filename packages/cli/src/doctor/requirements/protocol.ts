/**
 * The protocol requirements (see `Requirement`): the error codes a server answers with, per revision, and the shape
 * of its error responses. One entry per rule.
 */
import type { Requirement } from '../types.js';

const BOTH = ['stdio', 'http'] as const;

export const PROTOCOL_REQUIREMENTS: readonly Requirement[] = [
  {
    id: 'protocol.unknown-method-code',
    area: 'protocol',
    title: 'An unknown method did not get -32601',
    rule: 'An unknown method gets -32601',
    behaviour:
      'A request for a method the server does not implement is answered with a JSON-RPC error -32601 Method not found (over modern HTTP with status 404), never a result or another code.',
    spec: { revision: '2026-07-28', page: 'basic/transports/streamable-http.mdx', section: 'Protocol Version Header' },
    revisions: 'all',
    transports: BOTH,
    severity: 'error',
    causes: [
      'A catch-all handler answers every method, or throws and is answered -32603',
      'The method table is looked up after a step that fails first (parameter parsing, authentication)',
    ],
    fix: 'Answer a method you do not implement with { code: -32601, message: "Method not found" } (HTTP 404 on a 2026-07-28 POST); let your SDK\'s dispatcher do it.',
    fixture: { file: 'protocol-unknown-method-internal', transport: 'stdio' },
  },
  {
    id: 'protocol.unknown-tool-code',
    area: 'protocol',
    title: 'tools/call of an unknown tool did not get -32602',
    rule: 'tools/call of an unknown tool gets -32602',
    behaviour:
      'tools/call naming a tool that tools/list does not list is a protocol error: JSON-RPC -32602 Invalid params, not -32603 Internal error and not a tool result.',
    spec: { revision: '2025-11-25', page: 'server/tools.mdx', section: 'Error Handling' },
    revisions: 'all',
    transports: BOTH,
    severity: 'error',
    causes: [
      'The tool lookup throws (a missing map entry dereferenced) and the exception is answered -32603',
      'The server wraps every failure of tools/call, including the unknown tool, in an isError result',
    ],
    fix: 'Look the tool up first and answer an unknown name with { code: -32602, message: "Unknown tool: <name>" }.',
    fixture: { file: 'protocol-unknown-tool-internal', transport: 'stdio' },
  },
  {
    id: 'protocol.unknown-resource-code',
    area: 'protocol',
    title: 'resources/read of an unknown resource did not get the revision\'s code',
    rule: 'resources/read of an unknown resource gets the revision\'s code',
    behaviour:
      'resources/read of a URI the server does not have is answered with -32002 (revisions up to 2025-11-25, a SHOULD) or -32602 (2026-07-28, a MUST; -32002 is retired there), never an empty contents array.',
    spec: { revision: '2026-07-28', page: 'server/resources.mdx', section: 'Error Handling' },
    revisions: 'all',
    transports: BOTH,
    severity: 'error',
    causes: [
      'The resource handler throws a generic error, answered -32603',
      'A dual-era server uses one code for both eras',
      'A missing resource is answered with an empty contents array',
    ],
    fix: 'Answer a URI you do not have with -32002 on session-based revisions and with -32602 plus data: { uri } on 2026-07-28 (MCP 2025-11-25 server/resources.mdx "Error Handling").',
    fixture: { file: 'protocol-resource-legacy-code', transport: 'stdio' },
  },
  {
    id: 'protocol.reserved-code',
    area: 'protocol',
    title: 'An error code made up in the range MCP reserves',
    rule: 'No made-up codes in the range MCP reserves',
    behaviour:
      'Codes from -32020 to -32099 are reserved for the MCP specification: a server uses only those the spec defines, with their meaning (-32020, -32021, -32022; -32042 at 2025-11-25), and at 2026-07-28 emits neither the retired -32002 and -32042 nor other undefined ones.',
    spec: { revision: '2026-07-28', page: 'basic/index.mdx', section: 'Error Codes' },
    revisions: 'all',
    transports: BOTH,
    severity: 'warning',
    causes: ['The implementation picked its own code in the reserved range', 'A code of an earlier revision is used at 2026-07-28'],
    fix: 'Use the standard JSON-RPC codes or the ones MCP defines; application-specific codes belong outside -32768…-32000.',
    fixture: { file: 'protocol-reserved-code', transport: 'stdio' },
  },
  {
    id: 'protocol.error-shape',
    area: 'protocol',
    title: 'An error response is malformed',
    rule: 'Error responses are well-formed',
    behaviour:
      'An error response carries the id of the request it answers, an error object with an integer code and a string message, and no result.',
    spec: { revision: '2025-11-25', page: 'basic/index.mdx', section: 'Error Responses' },
    revisions: 'all',
    transports: BOTH,
    severity: 'error',
    causes: ['The error is built by hand (a string code, a missing message, id null)', 'An exception object is serialized as the error'],
    fix: 'Answer { jsonrpc: "2.0", id: <the request\'s id>, error: { code: <integer>, message: <string>, data?: … } }.',
    fixture: { file: 'protocol-error-without-message', transport: 'stdio' },
  },
  {
    id: 'protocol.stack-trace',
    area: 'protocol',
    title: 'An error leaks a stack trace',
    rule: 'Internal errors do not leak stack traces',
    behaviour: 'A -32603 Internal error says what failed without the server\'s stack trace: file paths and line numbers help attackers and confuse models.',
    spec: null,
    source: 'https://owasp.org/www-community/Improper_Error_Handling',
    revisions: 'all',
    transports: BOTH,
    severity: 'warning',
    causes: ['The exception\'s stack is copied into error.message or error.data', 'A development mode is left on'],
    fix: 'Log the stack on the server side (stderr) and answer a short message; keep details out of error.data.',
    fixture: { file: 'protocol-stack-trace', transport: 'stdio' },
  },
  {
    id: 'protocol.invalid-arguments',
    area: 'protocol',
    title: 'Arguments that break inputSchema did not get a tool error the model can fix',
    rule: 'Arguments that break inputSchema are a tool error the model can fix',
    behaviour:
      'tools/call with arguments that break the tool\'s inputSchema is answered with a tool result with isError: true naming the problem (from 2025-11-25 input validation errors are tool execution errors), or with -32602 Invalid params before 2025-11-25; never -32603 and never a plain success.',
    spec: { revision: '2025-11-25', page: 'server/tools.mdx', section: 'Error Handling' },
    revisions: 'all',
    transports: BOTH,
    severity: 'warning',
    causes: [
      'The tool does not validate its arguments and fails inside (answered -32603) or runs with them',
      'The SDK refuses invalid arguments with -32602, which most hosts do not show to the model',
    ],
    fix: 'Validate the arguments against the inputSchema and answer a failure with { content: [{ type: "text", text: "<what is wrong>" }], isError: true }.',
    fixture: { file: 'protocol-bad-arguments', transport: 'stdio', call: { name: 'add', args: { a: 1, b: 2 } } },
  },
];
