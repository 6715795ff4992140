import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, asProfile, until } from '../agent/helpers.js';
import { realClock } from '../../src/core/run/context.js';
import { leaks } from '../helpers/terminal-leaks.js';
import { type E2E, setup } from './helpers.js';
import { callsReceived } from './mcp-helpers.js';

// `gsh mcp tools`, `call`, `install`, `uninstall` for people and scripts (issue 52 "For people
// and scripts"): descriptions through the terminal door on a hostile service, gsh's exit codes
// (DESIGN.md "Exit codes": forbidden 4, not found 5, a person must act 7), a client's file kept
// whole around the entry, which holds absolute paths and no secret.

let t: E2E;
let hostile: E2E;
let dir: string;
beforeAll(async () => {
  [t, hostile] = await Promise.all([setup({ servers: 3 }), setup({ servers: 2, hostile: true })]);
  agent(t).configure({ claimIntervalS: 0.2, approvalIntervalS: 0.2 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-mcp-cmd-'));
});
afterAll(async () => {
  await Promise.all([t.close(), hostile.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const firstId = (e: E2E = t) => [...e.sandbox.state.servers.keys()].sort()[0]!;

describe('gsh mcp tools', () => {
  it('lists names, titles and annotations after the guardrails; -o json whole', async () => {
    const r = await t.gsh(['mcp', 'tools', '--read-only']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('list_servers\tList servers\tyes\t');
    expect(r.stdout).not.toContain('rename_server');
    const json = await t.gsh(['mcp', 'tools', '-o', 'json']);
    const tools = JSON.parse(json.stdout);
    expect(tools.find((x: any) => x.name === 'rename_server').annotations).toBeUndefined();
    expect(tools.map((x: any) => x.name)).not.toContain('delete_server');
  });

  it('on a terminal, a hostile service\'s titles and descriptions show only gsh\'s own sequences', async () => {
    const r = await hostile.gsh(['mcp', 'tools'], { env: { NO_COLOR: undefined, TERM: 'xterm' }, tty: { stdout: true, stderr: true, columns: 200 } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('^[');
    expect(leaks(r.stdout)).toEqual([]);
    expect(leaks(r.stderr)).toEqual([]);
  });
});

describe('gsh mcp call', () => {
  it('on a terminal, a hostile result shows only gsh\'s own sequences; piped, the bytes are the service\'s', async () => {
    const tty = await hostile.gsh(['mcp', 'call', 'list_servers'], { env: { NO_COLOR: undefined, TERM: 'xterm' }, tty: { stdout: true, stderr: true, columns: 200 } });
    expect(tty.exitCode, tty.stderr).toBe(0);
    expect(tty.stdout).toContain('^[');
    expect(leaks(tty.stdout)).toEqual([]);
    const piped = await hostile.gsh(['mcp', 'call', 'list_servers']);
    expect(piped.stdout).toContain('\x1b[8m');
  });

  it('prints the result of a read; a write acts once', async () => {
    const r = await t.gsh(['mcp', 'call', 'get_server', '--args', JSON.stringify({ server_id: firstId() })]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data.id).toBe(firstId());
    const before = t.sandbox.effects.length;
    const w = await t.gsh(['mcp', 'call', 'send_command', '--args', '-'], { input: JSON.stringify({ server_id: firstId(), command: 'say hi' }) });
    expect(w.exitCode, w.stderr).toBe(0);
    expect(t.sandbox.effects.slice(before)).toHaveLength(1);
  });

  it('exit codes: refused 4, forbidden 4, not found 5, no such tool 5, bad --args 2 before any request', async () => {
    const refused = await t.gsh(['mcp', 'call', 'rename_server', '--read-only', '--args', JSON.stringify({ server_id: firstId(), name: 'x' })]);
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toMatch(/refused: --read-only/);
    expect(callsReceived(t, 'rename_server')).toHaveLength(0);
    const forbidden = await t.gsh(['mcp', 'call', 'send_command', '--args', JSON.stringify({ server_id: firstId(), command: 'x' })], { env: { GSH_API_KEY: t.sandbox.keys.readOnly } });
    expect(forbidden.exitCode, forbidden.stderr).toBe(4);
    const missing = await t.gsh(['mcp', 'call', 'get_server', '--args', '{"server_id":"nosuch00"}']);
    expect(missing.exitCode).toBe(5);
    const noTool = await t.gsh(['mcp', 'call', 'no_such_tool']);
    expect(noTool.exitCode).toBe(5);
    expect(noTool.stderr).toContain('gsh mcp tools');
    const before = t.sandbox.log.length;
    const bad = await t.gsh(['mcp', 'call', 'get_server', '--args', '[1]']);
    expect(bad.exitCode).toBe(2);
    expect(t.sandbox.log.length).toBe(before);
  });

  it('a rejected approval: exit 7', async () => {
    const login = t.gsh(['auth', 'login', '--agent', '--email', 'demo@example.com'], { env: asProfile('caller'), clock: realClock });
    let exited = false;
    void login.finally(() => (exited = true));
    const claim = await until(() => exited || [...agent(t).claims.values()].find((c) => c.userCode && !c.completed && !c.spent), 20_000);
    if (claim !== true) agent(t).completeClaim(claim.userCode);
    expect((await login).exitCode).toBe(0);
    const call = t.gsh(['mcp', 'call', 'delete_server', '--allow-destructive', '--args', JSON.stringify({ server_id: firstId() })], { env: asProfile('caller') });
    await until(() => [...agent(t).approvals.values()].some((a) => a.status === 'pending'));
    agent(t).decide(undefined, 'rejected');
    const r = await call;
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/rejected/);
  });
});

describe('gsh mcp install and uninstall', () => {
  it('adds the entry with absolute paths and no secret, keeping the file\'s other entries and settings', async () => {
    const file = join(dir, 'claude_desktop_config.json');
    writeFileSync(file, JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'other-server', args: ['--x'] } } }));
    const r = await t.gsh(['--profile', 'ops', 'mcp', 'install', '--client', 'claude-desktop', '--config-file', file, '--read-only', '--tools', 'list_*']);
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    const config = JSON.parse(text);
    expect(config.theme).toBe('dark');
    expect(config.mcpServers.other).toEqual({ command: 'other-server', args: ['--x'] });
    const entry = config.mcpServers.gsh;
    expect(isAbsolute(entry.command)).toBe(true);
    expect(isAbsolute(entry.args[0])).toBe(true);
    expect(entry.args[0]).toMatch(/bin[/\\]gsh\.js$/);
    expect(entry.args.slice(1)).toEqual(['--profile', 'ops', 'mcp', 'proxy', '--read-only', '--tools', 'list_*']);
    expect(entry.env).toEqual({ GSH_CONFIG_DIR: t.configDir });
    expect(text).not.toContain(t.sandbox.keys.all);
    expect(text).not.toMatch(/GSH_API_KEY|GSH_TOKEN/);
  });

  it('a different entry of the same name is replaced only with --yes; --print writes nothing; uninstall keeps the others', async () => {
    const file = join(dir, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { gsh: { command: 'old', args: [] }, keep: { command: 'k', args: [] } } }));
    const refused = await t.gsh(['mcp', 'install', '--client', 'cursor', '--config-file', file]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.gsh.command).toBe('old');
    const printed = await t.gsh(['mcp', 'install', '--client', 'vscode', '--print']);
    expect(JSON.parse(printed.stdout).servers.gsh.type).toBe('stdio');
    const replaced = await t.gsh(['--yes', 'mcp', 'install', '--client', 'cursor', '--config-file', file]);
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.gsh.args.slice(1)).toEqual(['mcp', 'proxy']);
    const removed = await t.gsh(['mcp', 'uninstall', '--client', 'cursor', '--config-file', file]);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers).toEqual({ keep: { command: 'k', args: [] } });
  });

  it('a file that is not plain JSON is left as it is', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{ // a comment\n}');
    const r = await t.gsh(['mcp', 'install', '--client', 'cursor', '--config-file', file]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/not plain JSON/);
    expect(readFileSync(file, 'utf8')).toBe('{ // a comment\n}');
  });
});
