/**
 * The stdio hygiene requirements (see `Requirement`): what a stdio server writes on stdout and how it answers, line
 * by line. stdout carries nothing but MCP messages, one per LF-delimited line (MCP 2025-11-25 basic/transports.mdx
 * "stdio"; the same rules in MCP 2026-07-28 basic/transports/stdio.mdx); responses and notifications follow
 * JSON-RPC 2.0 as MCP narrows it (basic/index.mdx "Messages").
 */
import type { Requirement, SpecRef } from '../types.js';

const STDIO: SpecRef = { revision: '2025-11-25', page: 'basic/transports.mdx', section: 'stdio' };
const RESULT_RESPONSES: SpecRef = { revision: '2025-11-25', page: 'basic/index.mdx', section: 'Result Responses' };
const ERROR_RESPONSES: SpecRef = { revision: '2025-11-25', page: 'basic/index.mdx', section: 'Error Responses' };
const NOTIFICATIONS: SpecRef = { revision: '2025-11-25', page: 'basic/index.mdx', section: 'Notifications' };

/** The id of each stdio requirement. */
export const STDIO_IDS = {
  stdoutNotProtocol: 'stdio.stdout-not-protocol',
  crlf: 'stdio.crlf-line-endings',
  bom: 'stdio.bom',
  notificationAnswered: 'stdio.notification-answered',
  idTypeChanged: 'stdio.id-type-changed',
  parseErrorReply: 'stdio.parse-error-reply',
  malformedLineKills: 'stdio.malformed-line-kills-server',
} as const;

export const STDIO_REQUIREMENTS: readonly Requirement[] = [
  {
    id: STDIO_IDS.stdoutNotProtocol,
    area: 'stdio',
    title: 'Stdout carries lines that are not MCP messages',
    rule: 'Only MCP messages on stdout',
    behaviour: 'Every line the server writes on stdout is one JSON-RPC message; banners, logs, progress bars and blank lines go to stderr.',
    spec: STDIO,
    source: 'https://github.com/modelcontextprotocol/inspector/issues/343 (a start-up banner on stdout broke the client)',
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'A start-up banner or a log line printed to stdout (in Node the console\'s `log`, `info` and `debug`; in Python `print()`)',
      'A logging library configured with its default stdout handler',
      'A dependency that prints a warning or a progress bar on stdout, or a wrapper script that echoes',
    ],
    fix: 'Send every log to stderr (in Node the console\'s `error`, in Python `print(..., file=sys.stderr)`, or a logging handler on stderr); keep stdout for the MCP transport alone.',
    fixture: { file: 'stdio-banner', transport: 'stdio' },
  },
  {
    id: STDIO_IDS.crlf,
    area: 'stdio',
    title: 'Lines end with CRLF',
    rule: 'Lines end with LF',
    behaviour: 'Messages are delimited by a single LF; a CR before it is tolerated by lenient clients only.',
    spec: STDIO,
    source: 'https://github.com/modelcontextprotocol/go-sdk/issues/664 (CRLF line ends broke initialize)',
    revisions: 'all',
    transports: ['stdio'],
    severity: 'warning',
    causes: [
      'The server writes with the platform\'s line ending on Windows (`Console.WriteLine`, text-mode stdout in Python)',
      'A wrapper or a pipe translating line endings',
    ],
    fix: 'Write `\\n` explicitly, with stdout in binary mode or with its newline translation turned off.',
    fixture: { file: 'stdio-crlf', transport: 'stdio' },
  },
  {
    id: STDIO_IDS.bom,
    area: 'stdio',
    title: 'Stdout starts with a byte order mark',
    rule: 'No byte order mark',
    behaviour: 'No line starts with a UTF-8 byte order mark (U+FEFF): JSON sent over a network must not carry one (RFC 8259 §8.1), and strict clients drop such a line and wait for their timeout.',
    spec: STDIO,
    source: 'https://github.com/modelcontextprotocol/typescript-sdk/issues/2775 (a line starting with a byte order mark was dropped)',
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'stdout is opened with an encoding that writes a BOM (.NET `Encoding.UTF8`, PowerShell, Python\'s `utf-8-sig`)',
      'The server copies a file that starts with a BOM into its output',
    ],
    fix: 'Write UTF-8 without a BOM (.NET: `new UTF8Encoding(false)`; Python: `utf-8`).',
    fixture: { file: 'stdio-bom', transport: 'stdio' },
  },
  {
    id: STDIO_IDS.notificationAnswered,
    area: 'stdio',
    title: 'A notification was answered',
    rule: 'Notifications get no answer',
    behaviour: 'A notification (a message without `id`) gets no response at all, not even an error, whether the server knows its method or not (JSON-RPC 2.0 §4.1).',
    spec: NOTIFICATIONS,
    source: 'https://github.com/modelcontextprotocol/go-sdk/issues/196 (a notification sent with an id, never answered)',
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'The dispatcher answers every message and treats a missing id as `null`',
      'Unknown methods get a -32601 error without checking whether the message was a notification',
    ],
    fix: 'Answer only messages that carry an `id`; drop unknown notifications silently (log them on stderr if useful).',
    fixture: { file: 'stdio-answers-notifications', transport: 'stdio' },
  },
  {
    id: STDIO_IDS.idTypeChanged,
    area: 'stdio',
    title: 'A response id changed its type',
    rule: 'Response ids keep their type',
    behaviour: 'A response carries the request\'s `id` unchanged: the string `"7"` comes back as `"7"`, the number `8` as `8` (JSON-RPC 2.0 §5 "Response object"); a client matching ids exactly never sees an answer of another type.',
    spec: RESULT_RESPONSES,
    source: 'https://github.com/modelcontextprotocol/python-sdk/issues/1795 (a string id "0" taken for the number 0)',
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'Ids are parsed to numbers (or converted to strings) when requests are tracked',
      'A typed request model declares `id` as an integer only',
    ],
    fix: 'Store the id exactly as received and write it back as is; accept both strings and numbers.',
    fixture: { file: 'stdio-numeric-ids', transport: 'stdio' },
  },
  {
    id: STDIO_IDS.parseErrorReply,
    area: 'stdio',
    title: 'A malformed line got no parse error',
    rule: 'A malformed line gets a parse error',
    behaviour: 'A line that is not valid JSON gets a -32700 error response with `"id": null` (JSON-RPC 2.0 §5); from MCP 2025-11-25 the schema also lets that `id` be left out, earlier revisions require the member.',
    spec: ERROR_RESPONSES,
    source: 'JSON-RPC 2.0 §5 (an error whose request id is unknown carries "id": null); https://github.com/modelcontextprotocol/go-sdk/issues/1209 (no -32700 for a line that is not JSON)',
    revisions: 'all',
    transports: ['stdio'],
    severity: 'warning',
    causes: [
      'The reader skips lines it cannot parse without answering',
      'Parse failures are reported with another code (-32600, -32603) or a made-up id',
    ],
    fix: 'Answer a line that does not parse with `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` and read on.',
    fixture: { file: 'stdio-silent-parse-error', transport: 'stdio' },
  },
  {
    id: STDIO_IDS.malformedLineKills,
    area: 'stdio',
    title: 'A malformed line ended the session',
    rule: 'A malformed line does not end the session',
    behaviour: 'After a line that is not valid JSON, the server keeps running and answers the next request: each line is its own message.',
    spec: STDIO,
    source: 'https://github.com/modelcontextprotocol/go-sdk/issues/1209 (one invalid line ended the stdio session)',
    revisions: 'all',
    transports: ['stdio'],
    severity: 'error',
    causes: [
      'An exception from the JSON parser escapes the read loop and ends the process',
      'A streaming decoder reads all of stdin as one document and stops at the first syntax error',
    ],
    fix: 'Parse each line on its own inside the read loop, answer a failure with -32700 and go on reading.',
    fixture: { file: 'stdio-dies-on-malformed-line', transport: 'stdio' },
  },
];
