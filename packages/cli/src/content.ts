/**
 * How results read at a terminal: text as it is, everything else summarised in one line (kind, media type,
 * size). Shared by `call` (tool result content) and `read` (resource contents). Every server value is made safe
 * (`terminalText`): text keeps its line feeds and tabs, the one-line summaries keep none.
 */
import type { Output } from './output.js';
import { terminalText } from './terminalText.js';

type Block = Record<string, unknown>;

/** Bytes a base64 string decodes to. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** One resource contents item (text or blob) as text: the text itself, or a summary of the blob. */
export function resourceContentsText(item: Block): string {
  if (typeof item.text === 'string') return terminalText(item.text, 'block');
  const mime = typeof item.mimeType === 'string' ? ` ${terminalText(item.mimeType)}` : '';
  const bytes = typeof item.blob === 'string' ? `, ${size(base64Bytes(item.blob))}` : '';
  return `[blob ${terminalText(item.uri)}${mime}${bytes}]`;
}

/** One content block of a tool result as text. */
export function contentBlockText(block: Block): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? terminalText(block.text, 'block') : '';
    case 'image':
    case 'audio': {
      const bytes = typeof block.data === 'string' ? `, ${size(base64Bytes(block.data))}` : '';
      return `[${block.type} ${terminalText(block.mimeType)}${bytes}]`;
    }
    case 'resource_link':
      return `[resource link ${terminalText(block.uri)}${typeof block.name === 'string' ? ` (${terminalText(block.name)})` : ''}]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as Block;
      return typeof resource.text === 'string' ? `[resource ${terminalText(resource.uri)}]\n${terminalText(resource.text, 'block')}` : resourceContentsText(resource);
    }
    default:
      return `[${terminalText(block.type)} content]`;
  }
}

/** Writes a tool result's content on stdout, one block after another; `structuredContent` alone is printed as JSON. */
export function printToolResult(output: Output, result: { readonly content?: readonly unknown[]; readonly structuredContent?: unknown }): void {
  const blocks = (result.content ?? []) as Block[];
  for (const block of blocks) output.line(contentBlockText(block));
  if (blocks.length === 0 && result.structuredContent !== undefined) output.json(result.structuredContent);
}
