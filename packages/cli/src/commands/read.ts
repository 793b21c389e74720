/**
 * `switchboard read <target> <uri>`: a resource's contents (text as it is, blobs summarised), `--json` the raw
 * result, `--out FILE` the first item's bytes written to a file.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CliError, ExitCode } from '../errors.js';
import { resourceContentsText } from '../content.js';
import { reportFailure, withClient, type ServerCommandOptions } from './serverCommand.js';
import { terminalText } from '../terminalText.js';

/** Runs the command. */
export async function readCommand(options: ServerCommandOptions & { readonly uri: string | undefined; readonly out: string | undefined }): Promise<number> {
  const { output, io } = options;
  if (options.uri === undefined || options.uri === '') return reportFailure(output, new CliError('usage', 'Missing resource URI: switchboard read <target> <uri>'), true);
  const uri = options.uri;
  return withClient(options, async (client, _target, signal) => {
    const result = await client.readResource({ uri }, { signal });
    const contents = result.contents as readonly Record<string, unknown>[];
    if (options.out !== undefined) {
      const first = contents[0];
      if (first === undefined) throw new CliError('write_failed', `Nothing to write: "${uri}" has no contents`);
      const file = path.resolve(io.cwd, options.out);
      const bytes = typeof first.blob === 'string' ? Buffer.from(first.blob, 'base64') : Buffer.from(typeof first.text === 'string' ? first.text : '', 'utf8');
      try {
        writeFileSync(file, bytes);
      } catch (error) {
        throw new CliError('write_failed', `Cannot write "${file}": ${(error as Error).message}`);
      }
      output.note(`wrote ${bytes.length} bytes of ${terminalText(typeof first.uri === 'string' ? first.uri : uri)} to ${terminalText(file)}${contents.length > 1 ? ` (the first of ${contents.length} items)` : ''}`);
      return ExitCode.Ok;
    }
    if (options.json) {
      output.json(result);
      return ExitCode.Ok;
    }
    for (const item of contents) {
      const text = resourceContentsText(item); // made safe for the terminal there
      output.raw(text.endsWith('\n') ? text : `${text}\n`);
    }
    return ExitCode.Ok;
  });
}
