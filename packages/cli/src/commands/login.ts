/**
 * `switchboard login <url>`: signs in to an MCP server that needs OAuth, the way MCP's authorization spec says
 * (discovery, PKCE, the RFC 8707 resource, CIMD or dynamic registration), with a one-shot redirect listener on
 * 127.0.0.1; the tokens go to the user's credentials file (mode 0600), where `list`, `call`, `read` and `doctor`
 * find them for that URL. `--no-browser` prints the sign-in URL instead of opening a browser; `--logout` forgets
 * the tokens; `--list` shows who is signed in where.
 */
import { spawn } from 'node:child_process';
import { AuthorizationError, oauth } from '@switchboard/mcp/client';
import { startLoopbackRedirect } from '@switchboard/mcp/node';
import type { CliIo } from '../cliIo.js';
import { credentialsPath, FileOAuthStore } from '../credentials.js';
import { ExitCode } from '../errors.js';
import type { Output } from '../output.js';
import { terminalText } from '../terminalText.js';

/** Options of {@link loginCommand}. */
export interface LoginOptions {
  readonly io: CliIo;
  readonly output: Output;
  /** The MCP server URL; optional with `list`. */
  readonly url?: string;
  /** Print the sign-in URL instead of opening a browser. @default false */
  readonly noBrowser?: boolean;
  /** The scope to ask for. @default what the server's metadata lists */
  readonly scope?: string;
  /** How long (ms) to wait for the sign-in to complete. @default 300_000 */
  readonly timeoutMs?: number;
  /** Forget the tokens of `url` instead of signing in. */
  readonly logout?: boolean;
  /** List the servers with stored tokens. */
  readonly list?: boolean;
  /** The client's CIMD URL, used when the authorization server supports Client ID Metadata Documents. */
  readonly clientMetadataUrl?: string;
  /** Opens a URL in the user's browser. @default the platform's opener ({@link browserCommand}: `open`, `xdg-open`, `rundll32`) */
  readonly openBrowser?: (url: URL) => void;
}

/**
 * The command that opens `url` in the default browser on `platform`, as an argument vector run without a shell, so
 * nothing in the URL (`&`, `|`, `^`, `%`) is read as shell syntax: `open <url>` on macOS, `xdg-open <url>` elsewhere,
 * and on Windows `rundll32 url.dll,FileProtocolHandler <url>` (the URL handed to the shell's protocol handler as one
 * argument; `cmd /c start` would cut the URL at its first `&` and run what follows as a command). Only `https:` and
 * `http:` URLs are opened (the OAuth client already refuses other authorization endpoints, MCP 2025-11-25
 * basic/authorization.mdx "Communication Security"); a URL never starts with `-`, so it cannot be read as an option.
 * @returns The command and its arguments, or `undefined` for a URL of another scheme.
 */
export function browserCommand(platform: string, url: URL): { readonly command: string; readonly args: readonly string[] } | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (platform === 'darwin') return { command: 'open', args: [url.href] };
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url.href] };
  return { command: 'xdg-open', args: [url.href] };
}

/** The platform's way to open a URL in the default browser, detached (its failure is reported, never thrown). */
function systemBrowser(io: CliIo, output: Output): (url: URL) => void {
  return (url) => {
    const fallback = (): void => output.note(`Could not open a browser; open this URL yourself:\n  ${url.href}`);
    const opener = browserCommand(io.platform, url);
    if (opener === undefined) return fallback();
    try {
      // No `shell`: the URL reaches the opener as one argument, never through a command interpreter.
      const child = spawn(opener.command, [...opener.args], { detached: true, stdio: 'ignore', shell: false, windowsHide: true });
      child.on('error', fallback);
      child.unref();
    } catch {
      fallback();
    }
  };
}

/** Runs the command. */
export async function loginCommand(options: LoginOptions): Promise<number> {
  const { io, output } = options;
  const store = new FileOAuthStore(credentialsPath(io));
  if (options.list === true) {
    const entries = store.entries();
    if (entries.length === 0) output.line(`No stored sign-ins (${store.file})`);
    for (const e of entries) {
      const expiry = e.expiresAt === undefined ? '' : `, token ${e.expiresAt > Date.now() ? 'expires' : 'expired'} ${new Date(e.expiresAt).toISOString()}`;
      output.line(`${e.resource}  issuer ${e.issuer}${e.scope === undefined ? '' : `, scope "${e.scope}"`}${expiry}`);
    }
    return ExitCode.Ok;
  }
  if (options.url === undefined) {
    output.error('login needs the MCP server URL: switchboard login <url>');
    return ExitCode.Usage;
  }
  let url: URL;
  try {
    url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not http');
  } catch {
    output.error(`Not an http(s) URL: "${terminalText(options.url.slice(0, 200))}"`);
    return ExitCode.Usage;
  }
  if (options.logout === true) {
    await oauth({ store }).forget(url);
    output.line(`Signed out of ${url.href} (tokens removed from ${store.file})`);
    return ExitCode.Ok;
  }
  const open = options.noBrowser === true ? undefined : (options.openBrowser ?? systemBrowser(io, output));
  const loopback = await startLoopbackRedirect({
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    open: (authorizationUrl) => {
      if (open === undefined) output.note(`Open this URL in a browser to sign in:\n  ${authorizationUrl.href}`);
      else {
        output.note(`Opening the browser to sign in (if it does not open, visit):\n  ${authorizationUrl.href}`);
        open(authorizationUrl);
      }
    },
  });
  const stop = (): void => void loopback.close();
  io.signal?.addEventListener('abort', stop, { once: true });
  try {
    const auth = oauth({
      store,
      redirectUri: loopback.redirectUri,
      authorize: loopback.authorize,
      clientMetadata: { client_name: 'Switchboard CLI' },
      ...(options.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: options.clientMetadataUrl }),
    });
    const tokens = await auth.signIn(url, options.scope === undefined ? {} : { scope: options.scope });
    output.line(`Signed in to ${url.href} at ${tokens.issuer}${tokens.scope === undefined ? '' : ` (scope "${tokens.scope}")`}${tokens.refreshToken === undefined ? '' : ', with a refresh token'}`);
    output.note(`Tokens saved in ${store.file} (mode 0600); list, call, read and doctor use them for this URL.`);
    return ExitCode.Ok;
  } catch (error) {
    output.error(terminalText(error instanceof AuthorizationError ? error.message : `Sign-in failed: ${error instanceof Error ? error.message : String(error)}`));
    return ExitCode.Failure;
  } finally {
    io.signal?.removeEventListener('abort', stop);
    await loopback.close();
  }
}
