/**
 * Command resolution the way a host's `spawn` does it: a bare name is looked up in each directory of the child's
 * `PATH`, in order (with `PATHEXT` on Windows); a name with a separator is a path and is not searched. Pure: the file
 * system is only asked through `isExecutable` (`DoctorEnv.isExecutable`), so the doctor can ask the same question for
 * the `PATH` a desktop host gives instead of the one it was started with.
 */

/**
 * The `PATH` a desktop host starts a stdio server with when it was launched from the Dock, Finder or Spotlight, per
 * platform. macOS: such an app inherits launchd's default `PATH`, not the shell's (`~/.zshrc`, nvm, Homebrew on Apple
 * Silicon in `/opt/homebrew/bin`, `~/.local/bin` are all missing); a bare `npx`, `uvx` or `node` that only the shell
 * finds fails there with `spawn npx ENOENT` (modelcontextprotocol/python-sdk#478). No entry: the platform has no
 * such well-known minimal `PATH` (Linux desktops differ by session; Windows hosts read the user's `Path`).
 */
export const DESKTOP_HOST_PATHS: Readonly<Record<string, string>> = Object.freeze({ darwin: '/usr/bin:/bin:/usr/sbin:/sbin' });

/** Windows' default `PATHEXT`, when the environment has none. */
const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

/** What {@link resolveCommand} is given. */
export interface CommandSearch {
  /** The command as configured, e.g. `npx`, `./server.js`, `/usr/local/bin/node`. */
  readonly command: string;
  /** The `PATH` to search (the child's: the target's `PATH` over the doctor's). Unset: nothing is searched. */
  readonly path: string | undefined;
  /** `process.platform`: `win32` splits on `;`, tries `PATHEXT` and also takes `\` as a separator. */
  readonly platform: string;
  /** Windows only: the extensions tried, `;`-separated. @default `.COM;.EXE;.BAT;.CMD` */
  readonly pathExt?: string;
  /** Whether a file exists and may be executed (`DoctorEnv.isExecutable`). */
  isExecutable(file: string): Promise<boolean>;
}

/** Where a command resolved. */
export interface CommandResolution {
  /** The file that would be started, or `undefined` when none was found. */
  readonly file: string | undefined;
  /** `path`: the command names a file (it has a separator) and was not searched; `search`: it was looked up. */
  readonly kind: 'path' | 'search';
  /** The directories looked in, in order (empty for a `path`). */
  readonly searched: readonly string[];
}

/** Whether `command` names a file rather than a program to look up. */
export function isPathCommand(command: string, platform: string): boolean {
  return command.includes('/') || (platform === 'win32' && command.includes('\\'));
}

/** The directories of a `PATH` value, in order. An empty entry is the current directory (`.`), as `execvp` reads it. */
export function pathDirectories(path: string, platform: string): string[] {
  if (path === '') return [];
  return path.split(platform === 'win32' ? ';' : ':').map((dir) => (dir === '' ? '.' : dir));
}

/** The `PATH` of an environment: `PATH`, or on Windows any letter case of it (`Path`). */
export function pathOf(environment: Readonly<Record<string, string | undefined>>, platform: string): string | undefined {
  if (platform !== 'win32') return environment.PATH;
  const key = Object.keys(environment).find((name) => name.toUpperCase() === 'PATH');
  return key === undefined ? undefined : environment[key];
}

function join(dir: string, name: string, platform: string): string {
  const separator = platform === 'win32' ? '\\' : '/';
  const trimmed = dir.endsWith('/') || (platform === 'win32' && dir.endsWith('\\')) ? dir.slice(0, -1) : dir;
  return `${trimmed}${separator}${name}`;
}

/** The names tried in one directory: the command itself, then on Windows each `PATHEXT` extension unless it has one. */
function candidates(search: CommandSearch): string[] {
  if (search.platform !== 'win32') return [search.command];
  const extensions = (search.pathExt ?? DEFAULT_PATHEXT).split(';').filter((ext) => ext !== '');
  const lower = search.command.toLowerCase();
  if (extensions.some((ext) => lower.endsWith(ext.toLowerCase()))) return [search.command];
  return [search.command, ...extensions.map((ext) => `${search.command}${ext.toLowerCase()}`)];
}

/**
 * Resolves a command as `spawn` would: a path is checked as is; a bare name is looked for in each directory of
 * `path`, the first executable match wins.
 * @returns the file found (or none) and the directories searched
 */
export async function resolveCommand(search: CommandSearch): Promise<CommandResolution> {
  if (isPathCommand(search.command, search.platform)) {
    return { file: (await search.isExecutable(search.command)) ? search.command : undefined, kind: 'path', searched: [] };
  }
  const searched = search.path === undefined ? [] : pathDirectories(search.path, search.platform);
  for (const dir of searched) {
    for (const name of candidates(search)) {
      const file = join(dir, name, search.platform);
      if (await search.isExecutable(file)) return { file, kind: 'search', searched };
    }
  }
  return { file: undefined, kind: 'search', searched };
}
