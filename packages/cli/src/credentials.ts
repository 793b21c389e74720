/**
 * The CLI's OAuth credentials: one JSON file per user (`<config dir>/switchboard/credentials.json`: `~/.config` or
 * `$XDG_CONFIG_HOME` on Linux, `~/Library/Application Support` on macOS, `%APPDATA%` on Windows), written with file
 * mode 0600 (only the user reads it) through a temporary file and a rename, so a crash never leaves half a file.
 * `switchboard login` fills it; `list`, `call`, `read` and `doctor` read it for the URL they reach.
 */
import fs from 'node:fs';
import path from 'node:path';
import { oauth, type HttpClientAuth, type OAuthClientAuth, type OAuthClientInformation, type OAuthStore, type OAuthTokens } from '@switchboard/mcp/client';
import type { CliIo } from './cliIo.js';
import { bearerChallenge } from './doctor/checks/http/authProbe.js';

/** The file's shape. */
interface CredentialsFile {
  readonly version: 1;
  readonly tokens: Record<string, OAuthTokens>;
  readonly clients: Record<string, OAuthClientInformation>;
}

/** Bound of the credentials file read (bytes): a file far larger is not ours. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The folder of the user's configuration (`~/.config`, `~/Library/Application Support`, `%APPDATA%`). */
function configDir(io: CliIo): string {
  if (io.env.XDG_CONFIG_HOME) return io.env.XDG_CONFIG_HOME;
  if (io.platform === 'darwin') return path.join(io.home, 'Library', 'Application Support');
  if (io.platform === 'win32') return io.env.APPDATA ?? path.join(io.home, 'AppData', 'Roaming');
  return path.join(io.home, '.config');
}

/** Where the credentials are: `$SWITCHBOARD_CREDENTIALS` when set, else `<config dir>/switchboard/credentials.json`. */
export function credentialsPath(io: CliIo): string {
  return io.env.SWITCHBOARD_CREDENTIALS ?? path.join(configDir(io), 'switchboard', 'credentials.json');
}

/**
 * An {@link OAuthStore} on the credentials file. Each call reads the file (another `switchboard` may have written it)
 * and each save rewrites it whole with mode 0600.
 */
export class FileOAuthStore implements OAuthStore {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  #read(): CredentialsFile {
    try {
      const stat = fs.statSync(this.file);
      if (stat.size > MAX_FILE_BYTES) return { version: 1, tokens: {}, clients: {} };
      const value = JSON.parse(fs.readFileSync(this.file, 'utf8')) as Partial<CredentialsFile>;
      return { version: 1, tokens: { ...value.tokens }, clients: { ...value.clients } };
    } catch {
      return { version: 1, tokens: {}, clients: {} };
    }
  }

  #write(data: CredentialsFile): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, this.file);
  }

  loadTokens(resource: string): OAuthTokens | undefined {
    return this.#read().tokens[resource];
  }

  saveTokens(resource: string, tokens: OAuthTokens | undefined): void {
    const data = this.#read();
    if (tokens === undefined) delete data.tokens[resource];
    else data.tokens[resource] = tokens;
    this.#write(data);
  }

  loadClient(issuer: string): OAuthClientInformation | undefined {
    return this.#read().clients[issuer];
  }

  saveClient(issuer: string, client: OAuthClientInformation | undefined): void {
    const data = this.#read();
    if (client === undefined) delete data.clients[issuer];
    else data.clients[issuer] = client;
    this.#write(data);
  }

  /** The resources that have tokens, with their issuer and scope (for `login --list`). */
  entries(): { readonly resource: string; readonly issuer: string; readonly scope?: string; readonly expiresAt?: number }[] {
    return Object.entries(this.#read().tokens).map(([resource, t]) => ({ resource, issuer: t.issuer, ...(t.scope === undefined ? {} : { scope: t.scope }), ...(t.expiresAt === undefined ? {} : { expiresAt: t.expiresAt }) }));
  }
}

/**
 * The auth of a server command that reaches an HTTP URL: the stored credentials, refreshed when they expire; no
 * sign-in (a server that needs one answers its 401, and the CLI says to run `switchboard login`).
 */
export function storedAuth(io: CliIo): OAuthClientAuth {
  return oauth({ store: new FileOAuthStore(credentialsPath(io)), timeoutMs: STORED_AUTH_TIMEOUT_MS });
}

/** Bound (ms) of each call a command makes to an authorization server (a refresh): the commands have budgets. */
const STORED_AUTH_TIMEOUT_MS = 10_000;

/**
 * `auth` that also tells `onScope` the `scope` of each 403 `insufficient_scope` challenge it is shown (the scopes the
 * request needs: MCP 2025-11-25 basic/authorization.mdx "Scope Challenge Handling", RFC 6750 §3.1), and `undefined`
 * as each new POST goes out, so that what it was last told is about the last request: a command which cannot sign
 * in again itself can then say which `switchboard login --scope` would help.
 */
export function watchScopeChallenges(auth: HttpClientAuth, onScope: (scope: string | undefined) => void): HttpClientAuth {
  return {
    headers: (request) => {
      if (request.method === 'POST' && request.resent === 0) onScope(undefined);
      return auth.headers(request);
    },
    challenged: (request, response) => {
      if (response.status === 403) {
        const challenge = bearerChallenge(response.headers.get('www-authenticate') ?? undefined);
        if (challenge?.error === 'insufficient_scope' && challenge.scope !== undefined && challenge.scope.trim() !== '') onScope(challenge.scope.trim());
      }
      return auth.challenged(request, response);
    },
  };
}
