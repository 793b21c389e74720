import { access, chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DESKTOP_HOST_PATHS, isPathCommand, pathDirectories, pathOf, resolveCommand } from './pathSearch.js';

/** A file system of executables, as a set of absolute names. */
function files(...names: string[]): (file: string) => Promise<boolean> {
  const set = new Set(names);
  return (file) => Promise.resolve(set.has(file));
}

describe('resolveCommand', () => {
  it('finds a bare name in the first PATH directory that has it, and lists the directories searched', async () => {
    const found = await resolveCommand({
      command: 'npx',
      path: '/Users/a/.nvm/versions/node/v22.1.0/bin:/opt/homebrew/bin:/usr/bin',
      platform: 'darwin',
      isExecutable: files('/opt/homebrew/bin/npx', '/usr/bin/npx'),
    });
    expect(found).toEqual({ file: '/opt/homebrew/bin/npx', kind: 'search', searched: ['/Users/a/.nvm/versions/node/v22.1.0/bin', '/opt/homebrew/bin', '/usr/bin'] });
  });

  it('does not find on the macOS desktop host PATH what only the shell PATH has', async () => {
    const isExecutable = files('/opt/homebrew/bin/uvx', '/usr/bin/python3');
    const host = await resolveCommand({ command: 'uvx', path: DESKTOP_HOST_PATHS.darwin, platform: 'darwin', isExecutable });
    expect(host).toEqual({ file: undefined, kind: 'search', searched: ['/usr/bin', '/bin', '/usr/sbin', '/sbin'] });
    const python = await resolveCommand({ command: 'python3', path: DESKTOP_HOST_PATHS.darwin, platform: 'darwin', isExecutable });
    expect(python.file).toBe('/usr/bin/python3');
  });

  it('checks a command with a separator as a path, without searching', async () => {
    const isExecutable = files('./server.js', '/opt/s/bin/server');
    expect(await resolveCommand({ command: './server.js', path: '/usr/bin', platform: 'linux', isExecutable })).toEqual({ file: './server.js', kind: 'path', searched: [] });
    expect(await resolveCommand({ command: '/opt/s/bin/server', path: undefined, platform: 'linux', isExecutable })).toEqual({ file: '/opt/s/bin/server', kind: 'path', searched: [] });
    expect(await resolveCommand({ command: '/opt/s/bin/missing', path: '/opt/s/bin', platform: 'linux', isExecutable })).toEqual({ file: undefined, kind: 'path', searched: [] });
  });

  it('searches nothing when there is no PATH, and reads an empty entry as the current directory', async () => {
    expect(await resolveCommand({ command: 'node', path: undefined, platform: 'linux', isExecutable: files('/usr/bin/node') })).toEqual({ file: undefined, kind: 'search', searched: [] });
    expect(await resolveCommand({ command: 'node', path: '', platform: 'linux', isExecutable: files('/usr/bin/node') })).toEqual({ file: undefined, kind: 'search', searched: [] });
    expect(await resolveCommand({ command: 'srv', path: '/usr/bin::/bin', platform: 'linux', isExecutable: files('./srv') })).toEqual({ file: './srv', kind: 'search', searched: ['/usr/bin', '.', '/bin'] });
  });

  it('on Windows splits on ";", tries PATHEXT in order, and keeps an extension the command already has', async () => {
    const isExecutable = files('C:\\Program Files\\nodejs\\npx.cmd', 'C:\\Program Files\\nodejs\\node.exe');
    const npx = await resolveCommand({ command: 'npx', path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs\\', platform: 'win32', isExecutable });
    expect(npx).toEqual({ file: 'C:\\Program Files\\nodejs\\npx.cmd', kind: 'search', searched: ['C:\\Windows\\system32', 'C:\\Program Files\\nodejs\\'] });
    const node = await resolveCommand({ command: 'node.exe', path: 'C:\\Program Files\\nodejs', platform: 'win32', pathExt: '.EXE', isExecutable });
    expect(node.file).toBe('C:\\Program Files\\nodejs\\node.exe');
    expect(isPathCommand('C:\\tools\\srv.exe', 'win32')).toBe(true);
    expect(isPathCommand('tools\\srv.exe', 'linux')).toBe(false);
  });

  it('resolves against the real file system: a non-executable file is not a match, an executable one further on is', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sb-path-'));
    try {
      const first = path.join(dir, 'a');
      const second = path.join(dir, 'b');
      await Promise.all([mkdir(first), mkdir(second)]);
      await writeFile(path.join(first, 'srv'), '#!/bin/sh\n');
      await writeFile(path.join(second, 'srv'), '#!/bin/sh\n');
      await chmod(path.join(second, 'srv'), 0o755);
      const isExecutable = (file: string) => access(file, constants.X_OK).then(() => true, () => false);
      const found = await resolveCommand({ command: 'srv', path: `${first}:${second}`, platform: 'linux', isExecutable });
      expect(found.file).toBe(path.join(second, 'srv'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('pathOf and pathDirectories', () => {
  it('reads PATH, and on Windows any letter case of it', () => {
    expect(pathOf({ PATH: '/usr/bin' }, 'linux')).toBe('/usr/bin');
    expect(pathOf({ Path: '/usr/bin' }, 'linux')).toBeUndefined();
    expect(pathOf({ Path: 'C:\\bin' }, 'win32')).toBe('C:\\bin');
    expect(pathDirectories('/a:/b', 'linux')).toEqual(['/a', '/b']);
    expect(pathDirectories('C:\\a;D:\\b', 'win32')).toEqual(['C:\\a', 'D:\\b']);
  });
});
