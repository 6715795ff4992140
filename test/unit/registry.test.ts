import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { familyLoaders, loadAllFamilies, topWords, type FamilyName } from '../../src/operations/index.js';
import type { CheckName, Family, Field, Operation, PermissionRule, ScopeRule } from '../../src/operations/types.js';
import { PERMISSIONS } from '../../src/operations/vocabulary.js';

// The registry against the contract: spec/operations.tsv lists all 325 operations; documents 1–3
// give paths, parameters, scopes and permissions. test/fixtures/spec holds a copy of the contract
// (test/unit/spec-copy.test.ts keeps it equal to the shared one where that sits beside the checkout).
const specDir = new URL('../fixtures/spec/', import.meta.url);
const tsv = readFileSync(new URL('operations.tsv', specDir), 'utf8');
const generalContract = readFileSync(new URL('01-general-contract.md', specDir), 'utf8');

const specOps = tsv
  .split('\n')
  .slice(1)
  .filter((l) => l.trim() !== '')
  .map((l) => {
    const [method, path] = l.split('\t');
    return `${method} ${path}`;
  });

// Every CheckName, kept complete by the compiler (a missing or extra key is a type error).
const CHECKS: Record<CheckName, true> = {
  'octal-mode': true, uuid: true, 'https-url': true, 'http-url': true, 'single-line': true, 'absolute-path': true,
};

// ARCHITECTURE.md "Command grammar" and "Requests": global flags and the flags the command builder
// adds (src/commands/registry-commands.ts). `limit`/`offset`/`page` are the runtime's only with
// `paging`.
const GLOBAL_FLAGS = ['server', 'profile', 'base-url', 'output', 'json', 'no-color', 'color', 'debug', 'yes',
  'input', 'no-input', 'idempotency-key', 'retries', 'timeout', 'help', 'version', 'wait', 'all', 'raw-field', 'field',
  'request-timeout', 'dry-run', 'jq', 'columns', 'header', 'no-header', 'quiet', 'all-servers', 'parallel', 'fail-fast', 'show-secret'];

interface Entry { family: Family; key: FamilyName; op: Operation }

const scopeNames = (rule: ScopeRule | undefined): readonly string[] => (rule === undefined ? [] : typeof rule === 'string' ? [rule] : rule.allOf);

/** Every permission a rule names, in any of its parts. */
function permissionNames(rule: PermissionRule | undefined): string[] {
  if (rule === undefined) return [];
  if (typeof rule === 'string') return [rule];
  const maps = [rule.byField ?? {}, rule.byValue?.values ?? {}].flatMap((m) => Object.values(m).flat());
  return [...(rule.allOf ?? []), ...maps, ...(rule.onServer?.allOf ?? [])];
}

let families: Family[] = [];
let entries: Entry[] = [];

beforeAll(async () => {
  families = await loadAllFamilies();
  const keys = Object.keys(familyLoaders) as FamilyName[];
  entries = families.flatMap((family, i) => family.operations.map((op) => ({ family, key: keys[i]!, op })));
});

const id = (op: Operation) => `${op.method} ${op.path}`;
/** Placeholders in path order, server_id left out; `/<game>/status` counts `game`. */
const placeholders = (path: string) =>
  [...path.matchAll(/\{([^}]+)\}|<([^>]+)>/g)].map((m) => (m[1] ?? m[2])!).filter((n) => n !== 'server_id');
/** The command lines an operation adds (a `verbs` op adds one per value). */
const commandsOf = (op: Operation) =>
  op.verbs ? op.verbs.values.map((v) => `${op.command} ${v}`) : [op.command];
const kebab = (s: string) => s.replace(/_/g, '-');

describe('operation registry (spec/operations.tsv, documents 1–3)', () => {
  it('operations.tsv: lists 325 operations, each once', () => {
    expect(specOps).toHaveLength(325);
    expect(new Set(specOps).size).toBe(325);
  });

  it('operations.tsv: every operation is declared exactly once, and nothing else is declared', () => {
    const declared = entries.map((e) => id(e.op));
    const counts = new Map<string, number>();
    for (const d of declared) counts.set(d, (counts.get(d) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1).map(([d]) => d), 'declared twice').toEqual([]);
    expect(specOps.filter((o) => !counts.has(o)), 'missing').toEqual([]);
    const spec = new Set(specOps);
    expect(declared.filter((d) => !spec.has(d)), 'not in the contract').toEqual([]);
    expect(declared).toHaveLength(325);
  });

  it('index.ts: each family file is named by its loader key', () => {
    const keys = Object.keys(familyLoaders);
    expect(families.map((f) => f.name)).toEqual(keys);
    for (const f of families) {
      expect(f.summary, f.name).toBeTruthy();
      expect(f.operations.length, f.name).toBeGreaterThan(0);
    }
  });

  it('ARCHITECTURE.md "Command grammar": command lines are unique across the registry, verbs expanded', () => {
    const all = entries.flatMap((e) => commandsOf(e.op));
    const seen = new Set<string>();
    const dup = all.filter((c) => (seen.has(c) ? true : (seen.add(c), false)));
    expect(dup).toEqual([]);
  });

  it('ARCHITECTURE.md "Command grammar": no command line is also a group of another (a leaf is never a prefix)', () => {
    const all = entries.flatMap((e) => commandsOf(e.op));
    const clashes = all.filter((c) => all.some((o) => o !== c && o.startsWith(`${c} `)));
    expect(clashes).toEqual([]);
    for (const c of all) expect(c, c).toMatch(/^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)*$/);
  });

  it('index.ts topWords: every first word is listed with the family that defines it, and no stale entries', () => {
    const used = new Map<string, Set<string>>();
    for (const e of entries) {
      const word = e.op.command.split(' ')[0]!;
      expect(topWords[word], `${e.op.command}: topWords lacks "${word}"`).toBeDefined();
      expect(topWords[word]!.families, `${e.op.command}: topWords.${word} lacks ${e.key}`).toContain(e.key);
      if (!used.has(word)) used.set(word, new Set());
      used.get(word)!.add(e.key);
    }
    for (const [word, { summary, families: fams }] of Object.entries(topWords)) {
      expect(summary, word).toBeTruthy();
      expect(used.has(word), `topWords.${word} defines no command`).toBe(true);
      for (const f of fams) expect(used.get(word)!.has(f), `topWords.${word} lists ${f} without commands`).toBe(true);
    }
  });

  it('document 2 reading rule 1: path ids other than server_id are positional params, in path order', () => {
    for (const { op } of entries) {
      expect((op.params ?? []).map((p) => p.name), id(op)).toEqual(placeholders(op.path));
      for (const p of op.params ?? []) {
        expect(p.description, `${id(op)} ${p.name}`).toBeTruthy();
        if (p.check) expect(CHECKS[p.check], `${id(op)} ${p.name}`).toBe(true);
      }
    }
  });

  it('document 1 "Envelope rules" 5 and 7: paging is offset or page, and paging flags are not redeclared', () => {
    for (const { op } of entries) {
      if (!op.paging) continue;
      expect(['offset', 'page'], id(op)).toContain(op.paging);
      expect(op.method, id(op)).toBe('GET');
      const names = (op.query ?? []).map((f) => f.name);
      for (const n of ['limit', 'offset', 'page']) expect(names, `${id(op)} declares ${n} with paging`).not.toContain(n);
    }
  });

  it('ARCHITECTURE.md "Output for scripts": every paged list declares its columns; columns are unique dot paths; idField and serverArgument only where they mean something', () => {
    for (const { op } of entries) {
      if (op.paging) expect(op.columns, `${id(op)} is a list`).toBeDefined();
      if (op.columns) {
        expect(op.columns.length, id(op)).toBeGreaterThan(0);
        expect(new Set(op.columns).size, `${id(op)} repeats a column`).toBe(op.columns.length);
        for (const c of op.columns) expect(c, id(op)).toMatch(/^[\w-]+(\.[\w-]+)*$/);
      }
      if (op.idField) expect(op.columns, `${id(op)}: idField on a list only`).toBeDefined();
      if (op.serverArgument) {
        expect(op.path, id(op)).toContain('{server_id}');
        expect(op.params ?? [], `${id(op)}: the server is its only argument`).toEqual([]);
      }
    }
  });

  it('document 1 "Limits": the standard pagination is marked on the contract\'s paginated lists', () => {
    const byId = new Map(entries.map((e) => [id(e.op), e.op]));
    for (const o of ['GET /servers', 'GET /account/ssh-keys', 'GET /servers/{server_id}/hooks', 'GET /init/templates',
      'GET /servers/{server_id}/files', 'GET /servers/{server_id}/files/trash', 'GET /me/activity']) {
      expect(byId.get(o)?.paging, o).toBe('offset');
    }
    for (const o of ['GET /servers/{server_id}/addons/search', 'GET /servers/{server_id}/worlds/maps',
      'GET /servers/{server_id}/git/commits']) {
      expect(byId.get(o)?.paging, o).toBe('page');
    }
  });

  it('documents 2–3: fields are well formed (choices, checks, bounds, item caps, flags)', () => {
    const check = (op: Operation, f: Field, where: string) => {
      const at = `${id(op)} ${where} ${f.name}`;
      expect(f.name, at).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(f.description, at).toBeTruthy();
      expect(['string', 'integer', 'number', 'boolean', 'string[]', 'json', 'text-file'], at).toContain(f.type);
      if (f.choices !== undefined) {
        expect(f.choices.length, at).toBeGreaterThan(0);
        expect(new Set(f.choices).size, at).toBe(f.choices.length);
        for (const c of f.choices) expect(typeof c === 'string' && c.length > 0, at).toBe(true);
        expect(['string', 'string[]'], at).toContain(f.type);
        if (f.default !== undefined && !f.open) expect(f.choices, at).toContain(String(f.default));
      } else {
        expect(f.open, `${at}: open without choices`).toBeUndefined();
      }
      if (f.check !== undefined) {
        expect(CHECKS[f.check], at).toBe(true);
        expect(['string', 'string[]'], at).toContain(f.type);
      }
      if (f.min !== undefined || f.max !== undefined) expect(['integer', 'number'], at).toContain(f.type);
      if (f.min !== undefined && f.max !== undefined) expect(f.min, at).toBeLessThanOrEqual(f.max);
      if (f.clamp) expect(f.min !== undefined || f.max !== undefined, `${at}: clamp without bounds`).toBe(true);
      if (f.maxItems !== undefined) {
        expect(f.type, at).toBe('string[]');
        expect(Number.isInteger(f.maxItems) && f.maxItems > 0, at).toBe(true);
      }
      if (f.flag !== undefined) expect(f.flag, at).toMatch(/^[a-z][a-z0-9-]*$/);
      if (f.secret) {
        expect(f.type, at).toBe('string');
        expect(f.default, `${at}: a secret has no default`).toBeUndefined();
      }
    };
    for (const { op } of entries) {
      const flags = new Set<string>();
      for (const [where, fields] of [['query', op.query], ['body', op.body]] as const) {
        for (const f of fields ?? []) {
          check(op, f, where);
          const flag = f.flag ?? kebab(f.name);
          expect(flags.has(flag), `${id(op)}: flag --${flag} declared twice`).toBe(false);
          expect(GLOBAL_FLAGS, `${id(op)}: --${flag} is a global or runtime flag`).not.toContain(flag);
          flags.add(flag);
        }
      }
      if (op.body?.length || op.form) expect(['POST', 'PUT', 'PATCH'], id(op)).toContain(op.method);
      if (op.verbs) {
        expect(op.verbs.values.length, id(op)).toBeGreaterThan(0);
        expect(new Set(op.verbs.values).size, id(op)).toBe(op.verbs.values.length);
      }
    }
  });

  it('documents 2–3: the contract\'s client-checkable rules are in the data', () => {
    const field = (method: string, path: string, name: string) => {
      const op = entries.find((e) => id(e.op) === `${method} ${path}`)?.op;
      return [...(op?.body ?? []), ...(op?.query ?? [])].find((f) => f.name === name);
    };
    expect(field('POST', '/servers/{server_id}/commands', 'command')?.check).toBe('single-line');
    expect(field('POST', '/servers/{server_id}/files/chmod', 'mode')?.check).toBe('octal-mode');
    expect(field('POST', '/servers/{server_id}/hooks', 'url')?.check).toBe('https-url');
    expect(field('POST', '/servers/{server_id}/files/copy-to', 'files')?.maxItems).toBe(100);
    expect(field('POST', '/servers/{server_id}/files/transfer', 'files')?.maxItems).toBe(50);
    const max = field('PUT', '/servers/{server_id}/players/max', 'max_players');
    expect([max?.min, max?.max, max?.clamp]).toEqual([0, 1000, undefined]);
    const du = field('GET', '/servers/{server_id}/files/disk-usage', 'limit');
    expect([du?.min, du?.max, du?.clamp]).toEqual([1, 100, true]);
    const uuidParam = entries.find((e) => id(e.op) === 'GET /servers/{server_id}/players/{uuid}')?.op.params?.[0];
    expect(uuidParam?.check).toBe('uuid');
  });

  it('document 1 "Scopes" and "Permission names": scopes and permissions named in the data exist in the contract', () => {
    const scopeTokens = new Set([...generalContract.matchAll(/`([a-z*][a-z*:-]*)`/g)].map((m) => m[1]!));
    for (const { op } of entries) {
      for (const s of scopeNames(op.scope)) expect(scopeTokens, `${id(op)} scope ${s}`).toContain(s);
      // Names only, never prose: every permission is one of the contract's list.
      for (const p of permissionNames(op.permission)) expect(PERMISSIONS as readonly string[], `${id(op)} permission ${p}`).toContain(p);
      if (op.permission !== undefined) expect(permissionNames(op.permission), id(op)).not.toEqual([]);
    }
  });

  it('document 2 "Power" and "Settings": body-dependent permissions cover every signal and every declared field', () => {
    for (const { op } of entries) {
      const rule = typeof op.permission === 'object' ? op.permission : undefined;
      if (op.verbs) {
        expect(rule?.byValue?.field, id(op)).toBe(op.verbs.field);
        expect(Object.keys(rule?.byValue?.values ?? {}).sort(), id(op)).toEqual([...op.verbs.values].sort());
      }
      if (rule?.byField) for (const f of op.body ?? []) expect(Object.keys(rule.byField), `${id(op)} ${f.name}`).toContain(f.name);
    }
  });

  it('document 3 "Operation families that are only named": no scope or permission is guessed for them', () => {
    const named = /^\/servers\/\{server_id\}\/(advertisement|allocations|ports|subdomains|domains|proxies|internal-network|firewall|databases|backups|schedules|git|monitor|logs|support-access)(\/|$)|^\/account\/(billing|tickets)(\/|$)|^\/<game>\//;
    const modulesNamed = /^\/servers\/\{server_id\}\/modules\/(delete|install|search|update|versions|tasks)/;
    for (const { op } of entries) {
      if (!named.test(op.path) && !modulesNamed.test(op.path)) continue;
      expect(op.scope, id(op)).toBeUndefined();
      expect(op.permission, id(op)).toBeUndefined();
    }
  });

  it('document 1 "Agent registration flow": unauthenticated, form-encoded token and revoke', () => {
    const byId = new Map(entries.map((e) => [id(e.op), e.op]));
    for (const o of ['GET /.well-known/oauth-authorization-server', 'GET /.well-known/oauth-protected-resource',
      'POST /agent/identity', 'POST /agent/identity/claim', 'POST /oauth2/token', 'POST /oauth2/revoke',
      'GET /health', 'GET /docs', 'GET /llms.txt', 'GET /llms-full.txt', 'GET /openapi.json']) {
      expect(byId.get(o)?.auth, o).toBe('none');
    }
    expect(byId.get('POST /oauth2/token')?.form).toBe(true);
    expect(byId.get('POST /oauth2/revoke')?.form).toBe(true);
    expect(entries.filter((e) => e.op.form).map((e) => id(e.op)).sort()).toEqual(['POST /oauth2/revoke', 'POST /oauth2/token']);
  });

  it('document 1 "Explicit-grant scopes": destructive operations confirm; every DELETE does unless it only withdraws or cancels', () => {
    const byId = new Map(entries.map((e) => [id(e.op), e.op]));
    for (const o of ['DELETE /servers/{server_id}', 'POST /servers/{server_id}/reinstall',
      'POST /servers/{server_id}/backups/{backup_uuid}/restore', 'POST /servers/{server_id}/importer',
      'POST /servers/{server_id}/files/delete', 'POST /servers/{server_id}/files/trash/delete',
      'POST /servers/{server_id}/files/trash/empty', 'DELETE /servers/{server_id}/players/{uuid}/files',
      'DELETE /servers/{server_id}/instances/{instance_id}', 'DELETE /servers/{server_id}/databases/{database_id}']) {
      expect(byId.get(o)?.destructive, o).toBe(true);
    }
    const notDestructive = new Set(['DELETE /servers/{server_id}/subusers/{user_id}', 'DELETE /servers/{server_id}/support-access',
      'DELETE /servers/{server_id}/git/link', 'DELETE /servers/{server_id}/advertisement',
      'DELETE /servers/{server_id}/modules/tasks/{task_id}']);
    for (const { op } of entries) {
      if (op.method !== 'DELETE') continue;
      expect(op.destructive === true, id(op)).toBe(!notDestructive.has(id(op)));
    }
  });

  it('document 1 "Job object": --wait follows a job, status or init resource the contract names', () => {
    const kinds = ['job', 'server-status', 'init', 'pull', 'transfer', 'backup'];
    const declaredPaths = new Set(entries.map((e) => e.op.path));
    for (const { op } of entries) {
      if (!op.wait) continue;
      expect(kinds, id(op)).toContain(op.wait.kind);
      // A backup is followed on its own resource (document 3 names GET .../backups/{backup_uuid}).
      if (op.wait.kind === 'backup') expect(declaredPaths, id(op)).toContain(op.wait.poll);
      if (op.wait.kind === 'job') {
        const poll = op.wait.poll;
        // The poll template is itself a declared GET path, up to the name of its last placeholder.
        const shape = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
        expect([...declaredPaths].map(shape), `${id(op)} polls ${poll}`).toContain(shape(poll));
        const known = new Set(['server_id', 'job_id', ...placeholders(op.path)]);
        for (const p of placeholders(poll)) expect(known, `${id(op)} poll placeholder ${p}`).toContain(p);
      }
    }
  });

  it('ARCHITECTURE.md "Lessons from other CLIs": one declaration per operation: each has a one-line summary and an example of its own command', () => {
    for (const { op } of entries) {
      expect(op.summary, id(op)).toBeTruthy();
      expect(op.summary, id(op)).not.toMatch(/\n/);
      expect(op.example, id(op)).toMatch(/^gsh /);
      expect(op.example, id(op)).not.toMatch(/\n/);
      const lines = commandsOf(op);
      expect(lines.some((c) => op.example === `gsh ${c}` || op.example.startsWith(`gsh ${c} `)), `${id(op)}: ${op.example}`).toBe(true);
      if (op.path.includes('{server_id}')) expect(op.example, id(op)).toMatch(/ -s \S+/);
      else expect(op.example, id(op)).not.toMatch(/ -s /);
    }
  });
});
