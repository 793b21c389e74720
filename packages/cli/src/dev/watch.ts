/**
 * The file watcher of `switchboard dev`: chokidar on the module's folder, debounced. chokidar rather than Node's
 * `fs.watch(dir, { recursive: true })`, which works on Node 20 on Linux but has no way to leave folders out: it
 * would put a watch on every folder of `node_modules` (thousands of inotify watches, each a kernel resource), and
 * an editor's save through a temporary file and a rename comes as several `rename` events. chokidar prunes
 * `node_modules`, `.git` and hidden folders before it descends, and reports a file replaced by rename as one
 * change (its `atomic` option).
 */
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

/** How long the folder must be quiet before a reload, in ms (an editor's save is often several writes). */
export const RELOAD_DEBOUNCE_MS = 100;

/** The files whose change reloads: sources and JSON (not logs or databases a server may write beside itself). */
const SOURCE = /\.(m?[jt]sx?|c[jt]s|json)$/i;

/** Folders never watched. */
const SKIPPED = new Set(['node_modules', '.git']);

/** Whether `file` (under `root`) is left out: in `node_modules`, `.git` or a hidden folder. */
function skipped(root: string, file: string): boolean {
  const parts = path.relative(root, file).split(path.sep);
  return parts.some((part) => SKIPPED.has(part) || (part.startsWith('.') && part !== '.' && part !== '..'));
}

/** A running watcher. */
export interface Watcher {
  close(): Promise<void>;
}

/**
 * Watches `root` and calls `onchange` with the changed files once no change came for {@link RELOAD_DEBOUNCE_MS}.
 * Resolves once the initial scan is done (changes before that are not reported).
 */
export async function watchSources(options: { readonly root: string; readonly onchange: (files: readonly string[]) => void; readonly debounceMs?: number }): Promise<Watcher> {
  const { root } = options;
  const watcher: FSWatcher = watch(root, { ignoreInitial: true, ignored: (file: string) => skipped(root, file) });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let changed = new Set<string>();
  watcher.on('all', (_event, file) => {
    if (!SOURCE.test(file)) return;
    changed.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...changed];
      changed = new Set();
      options.onchange(files);
    }, options.debounceMs ?? RELOAD_DEBOUNCE_MS);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
