import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { makeDir, replaceFile } from '../core/disk/disk.js';
import { Exit, GshError, UsageError } from '../core/errors.js';

// `gsh mcp install|uninstall --client …`: the bridge's entry in an AI client's configuration,
// written through the disk door. The entry runs Node and gsh's launcher by absolute paths (a
// client started from a desktop has not the shell's PATH, nvm's node included) with `mcp proxy`
// and the guardrail flags; it holds no secret, since the proxy takes its credential from gsh's
// store, and it names GSH_CONFIG_DIR only when that is set. Every other entry and setting of the
// file is kept; an entry of the same name that differs is replaced only with --yes.

export const CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type ClientName = (typeof CLIENTS)[number];

export interface ServerEntry {
  type?: 'stdio';
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** Where each client keeps its MCP servers, and under which key (VS Code: `servers`, the others: `mcpServers`). */
export function clientConfig(client: ClientName, env: NodeJS.ProcessEnv, cwd: string): { file: string; key: 'mcpServers' | 'servers' } {
  const home = env.HOME ?? env.USERPROFILE ?? '.';
  switch (client) {
    case 'claude-desktop': {
      const dir = process.platform === 'darwin' ? join(home, 'Library', 'Application Support', 'Claude')
        : process.platform === 'win32' ? join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Claude')
        : join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Claude');
      return { file: join(dir, 'claude_desktop_config.json'), key: 'mcpServers' };
    }
    case 'claude-code':
      // The user scope (`claude mcp add --scope user` writes here too).
      return { file: join(home, '.claude.json'), key: 'mcpServers' };
    case 'cursor':
      return { file: join(home, '.cursor', 'mcp.json'), key: 'mcpServers' };
    case 'vscode':
      // The workspace's file (VS Code reads .vscode/mcp.json of the folder it has open).
      return { file: join(cwd, '.vscode', 'mcp.json'), key: 'servers' };
  }
}

/** gsh's launcher (bin/gsh.js) by absolute path, found from this module's place (bundle or sources), as version.ts finds package.json. */
export function launcherPath(): string {
  for (const rel of ['../..', '../../..']) {
    const root = resolve(import.meta.dirname, rel);
    try {
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'gsh') return join(root, 'bin', 'gsh.js');
    } catch {
      // try the next layout
    }
  }
  throw new GshError('cannot find gsh\'s launcher (bin/gsh.js) beside this installation');
}

/** The entry that starts the bridge: node and the launcher by absolute path, no secret. */
export function bridgeEntry(client: ClientName, proxyArgs: readonly string[], env: NodeJS.ProcessEnv): ServerEntry {
  const entryEnv: Record<string, string> = {};
  if (env.GSH_CONFIG_DIR) entryEnv.GSH_CONFIG_DIR = resolve(env.GSH_CONFIG_DIR);
  return {
    ...(client === 'vscode' || client === 'claude-code' ? { type: 'stdio' as const } : {}),
    command: process.execPath,
    args: [launcherPath(), ...proxyArgs],
    ...(Object.keys(entryEnv).length ? { env: entryEnv } : {}),
  };
}

/** The file's JSON object (a missing file: an empty one); anything else stops, the file untouched. */
export function readConfig(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return {};
    throw new GshError(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GshError(`${file} is not plain JSON (${(err as Error).message}); gsh leaves it as it is`, Exit.error, 'Add the entry by hand (gsh mcp install --print shows it), or fix the file and run this again.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GshError(`${file} does not hold a JSON object; gsh leaves it as it is`);
  return value as Record<string, unknown>;
}

export interface Change {
  file: string;
  /** The whole file as it would be written; undefined: nothing to write. */
  text: string | undefined;
  what: string;
}

/** The file with the entry set (other entries kept); a different entry of that name needs --yes. */
export function withEntry(file: string, key: string, name: string, entry: ServerEntry, replace: boolean): Change {
  const config = readConfig(file);
  const servers = (config[key] ?? {}) as Record<string, unknown>;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) throw new GshError(`${file}: "${key}" is not an object; gsh leaves the file as it is`);
  const existing = servers[name];
  if (existing !== undefined && JSON.stringify(existing) === JSON.stringify(entry)) return { file, text: undefined, what: `${file} already has this "${name}" entry` };
  if (existing !== undefined && !replace) {
    throw new UsageError(`${file} already has a different "${name}" entry`, `Pass --yes to replace it, or --name NAME to add another beside it.`);
  }
  const next = { ...config, [key]: { ...servers, [name]: entry } };
  return { file, text: `${JSON.stringify(next, null, 2)}\n`, what: `${existing === undefined ? 'added' : 'replaced'} "${name}" in ${file}` };
}

/** The file without the entry (other entries kept). */
export function withoutEntry(file: string, key: string, name: string): Change {
  const config = readConfig(file);
  const servers = config[key] as Record<string, unknown> | undefined;
  if (!servers || typeof servers !== 'object' || !(name in servers)) return { file, text: undefined, what: `${file} has no "${name}" entry` };
  const { [name]: _gone, ...rest } = servers;
  return { file, text: `${JSON.stringify({ ...config, [key]: rest }, null, 2)}\n`, what: `removed "${name}" from ${file}` };
}

/** Writes the change atomically (the directory made where missing). */
export function apply(change: Change): void {
  if (change.text === undefined) return;
  makeDir(dirname(change.file));
  replaceFile(change.file, change.text);
}
