import { readFileSync } from 'node:fs';

// The server permissions each operation needs, read from the contract's own text (the copy in
// test/fixtures/spec, kept equal to the shared contract by test/unit/spec-copy.test.ts), never from
// the operation registry: a test built on this notices a registry entry that names the wrong one.
//
// Documents 2 and 3 state access per operation in table rows (`| \`METHOD /path\` | scope …;
// permission \`x\` … |`), with a few forms of their own, each read here:
// - "same access": the row above's;
// - a sentence heading a section ("All need … `file.read`"; custom packs: `file.update` for write
//   operations and `file.read` for reads) for rows that name none;
// - a permission "on the target" (file transfers): needed on the server named in the body;
// - power (document 2 "Power"): `control.<signal>` "matching the signal" (the name of the body field
//   carrying the signal is not shown: `signal` here, the value is what the contract gives);
// - PATCH /settings (document 2 "Settings"): a table of writable fields and the permission each needs;
// - conditions in a row's prose: "`application` (… needs `file.delete` …)", "`version` and `image`
//   need `startup.update`" (a body field), "`mode=cut` … cut also needs `file.update`", "(mode
//   `clean` also `file.delete`)" (a body value).

const SPEC = new URL('../fixtures/spec/', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, SPEC), 'utf8');

/** 01-general-contract.md "Permission names used by endpoints". */
export function contractPermissions(): string[] {
  const section = /### Permission names used by endpoints\n+([^\n]+)/.exec(read('01-general-contract.md'))?.[1];
  if (!section) throw new Error('01-general-contract.md: no "Permission names used by endpoints"');
  return [...section.matchAll(/`([a-z-]+\.[a-z-]+)`/g)].map((m) => m[1]!);
}

export interface ContractAccess {
  /** "METHOD /path" as in operations.tsv. */
  op: string;
  method: string;
  path: string;
  /** Needed on the path's server, whatever the body. */
  allOf: string[];
  /** Needed on the server a body field names (file transfers: the target). */
  onTarget: string[];
  /** Needed when the body carries the field. */
  byField: Record<string, string[]>;
  /** Needed for a value of a body field: field → value → permissions. */
  byValue: Record<string, Record<string, string[]>>;
}

export function contractAccess(): ContractAccess[] {
  const known = new Set(contractPermissions());
  const named = (text: string) => [...text.matchAll(/`([a-z-]+\.[a-z-]+)`/g)].map((m) => m[1]!).filter((p) => known.has(p));
  const out: ContractAccess[] = [];
  const entry = (method: string, path: string): ContractAccess => {
    const op = `${method} ${path}`;
    const seen = out.find((e) => e.op === op);
    if (seen) return seen;
    const e: ContractAccess = { op, method, path, allOf: [], onTarget: [], byField: {}, byValue: {} };
    out.push(e);
    return e;
  };
  for (const doc of ['02-endpoints-part-a.md', '03-endpoints-part-b.md']) {
    let sectionRead: string[] = [];
    let sectionWrite: string[] = [];
    let previous: string[] = [];
    let settings: ContractAccess | undefined;
    let fieldTable = false;
    for (const line of read(doc).split('\n')) {
      if (line.startsWith('#')) {
        sectionRead = sectionWrite = [];
        fieldTable = false;
        continue;
      }
      const custom = /^All need the server permission (`[^`]+`) for write operations and (`[^`]+`) for reads/.exec(line);
      if (custom) {
        sectionWrite = named(custom[1]!);
        sectionRead = named(custom[2]!);
        continue;
      }
      if (/^All need /.test(line)) {
        sectionRead = sectionWrite = named(line);
        continue;
      }
      if (line.startsWith('Writable fields of `PATCH /settings`')) {
        fieldTable = true;
        settings = entry('PATCH', '/servers/{server_id}/settings');
        continue;
      }
      const power = /^`(POST) (\/servers\/\{server_id\}\/power)`: (.*)$/.exec(line);
      if (power) {
        const e = entry(power[1]!, power[2]!);
        // "permission `control.start`, `control.stop` or `control.restart` matching the signal"
        e.byValue['signal'] = {};
        for (const p of named(/permission (.*?) matching the signal/.exec(power[3]!)?.[1] ?? '')) e.byValue['signal'][p.slice('control.'.length)] = [p];
        continue;
      }
      const row = /^\| `([A-Z]+) (\/[^`]*)` \| (.*) \|$/.exec(line);
      if (row) {
        const [, method, path, whole] = row as unknown as [string, string, string, string];
        const e = entry(method, path);
        let cell = whole;
        const condition = (re: RegExp, apply: (m: RegExpExecArray, needs: string[]) => void) => {
          for (const m of [...cell.matchAll(new RegExp(re, 'g'))]) {
            // "`version` (needs `software`)" is about a query, not a permission.
            if (named(m[0]).length === 0) continue;
            apply(m as RegExpExecArray, named(m[0]));
            cell = cell.replace(m[0], '');
          }
        };
        condition(/`([a-z_]+)` \([^)]*?needs `[a-z.-]+`[^)]*\)/, (m, needs) => void (e.byField[m[1]!] = needs));
        condition(/((?:`[a-z_]+`(?:, | and ))+`[a-z_]+`) need `[a-z.-]+`/, (m, needs) => {
          for (const f of m[1]!.matchAll(/`([a-z_]+)`/g)) e.byField[f[1]!] = needs;
        });
        condition(/(\w+) also needs `[a-z.-]+`/, (m, needs) => {
          const field = new RegExp(`\`(\\w+)=${m[1]}\``).exec(whole)?.[1];
          if (field) (e.byValue[field] ??= {})[m[1]!] = needs;
        });
        condition(/\((\w+) `(\w+)` also `[a-z.-]+`\)/, (m, needs) => void ((e.byValue[m[1]!] ??= {})[m[2]!] = needs));
        const onTarget = /`([a-z-]+\.[a-z-]+)` on the target/.exec(cell)?.[1];
        const all = cell.startsWith('same access') ? previous : named(cell);
        e.allOf = all.filter((p) => p !== onTarget);
        if (onTarget) e.onTarget = [onTarget];
        if (all.length === 0) e.allOf = method === 'GET' ? sectionRead : sectionWrite;
        previous = all;
        continue;
      }
      const field = fieldTable && settings ? /^\| (.*) \| (.*) \|$/.exec(line) : null;
      if (field && settings && !field[1]!.startsWith('Field') && !field[1]!.startsWith('---')) {
        for (const m of field[1]!.matchAll(/`([a-z_]+)`/g)) settings.byField[m[1]!] = named(field[2]!);
      }
    }
  }
  return out;
}
