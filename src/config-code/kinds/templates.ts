import { dirname, isAbsolute, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { distinctNames, safeFileName } from '../../common/file-names.js';
import { crypto } from '../../core/builtin.js';
import { Exit, GshError } from '../../core/errors.js';
import { fetchAll } from '../../core/wire/paging.js';
import { lintBytes } from '../../init/lint.js';
import type { RuleId } from '../../init/rules.js';
import type { ObjectSchema } from '../../init/schema-types.js';
import { readDeclaration } from '../input-limits.js';
import { adoptItemField, type Change, checkIdentities, dataOf, type FieldDiff, isObj, type Items, itemsOf, itemsOrPruned, type Kind, opSpec } from '../kind.js';

// Init templates (02-endpoints-part-a.md "Init templates and manifest validation"; 01 "Resource
// table": name unique per account, description, manifest). Account level: declared in a file of
// its own, by name (the identity, mapped to the template_id the listing shows). The manifest is a
// path to the manifest file beside the declaration (the file `gsh init lint` checks), linted by
// the same rules at the paid caps templates are saved at before anything is sent, and sent as its
// text (src/operations/init.ts: the `#service-init` header is a comment a parsed object would
// lose). It is compared as data (its YAML parsed: comments and layout are not compared) and shown
// by a digest of that data. The contract shows no field list of a template: a field the listing
// leaves out is read from the template itself, and a manifest the service never shows is listed
// as not compared, never taken as equal or different.

const LIST = 'GET /init/templates';
const GET = 'GET /init/templates/{template_id}';
const CREATE = 'POST /init/templates';
const UPDATE = 'PATCH /init/templates/{template_id}';
const DELETE = 'DELETE /init/templates/{template_id}';

/** Where export writes the manifests, beside the account's declaration file. */
const EXPORT_DIR = 'templates';

export interface TemplateDecl {
  name: string;
  description?: string;
  /** The manifest file as declared (relative to the declaration file) and its text. */
  manifest?: { file: string; text: string };
}

export interface LiveTemplate {
  id: string;
  name: string;
  /** Undefined: the service did not show it (the listing left it out and so did the template). */
  description?: string;
  /** The stored manifest as the service shows it (its text or its data); undefined when not shown. */
  manifest?: unknown;
}

const TEMPLATE: ObjectSchema = {
  type: 'object',
  description: 'One init template of the account; its name is its identity (unique per account).',
  required: ['name', 'manifest'],
  properties: {
    name: { type: 'string', description: 'The template\'s name (the identity: a new name is a new template)' },
    description: { type: 'string', description: 'What the template sets up' },
    manifest: { type: 'string', description: 'Path of its init manifest file, relative to this file (the file gsh init lint checks): linted at the paid caps before anything is sent, sent as its text' },
  },
};

/** A manifest path stays beside the declaration: relative, no `..` step (a file from a pull request never sends another file of the machine). */
function manifestPathProblem(rel: string): string | undefined {
  if (rel.trim() === '') return 'the manifest path is empty';
  if (isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) return `the manifest path is relative to this file, not absolute (got "${rel}")`;
  if (rel.split(/[\\/]/).includes('..')) return `the manifest path stays beside this file: no .. step (got "${rel}")`;
  return undefined;
}

const manifestText = (file: string, rel: string): string => readDeclaration(join(dirname(file), rel));

/** The manifest's data in one canonical text (keys sorted): what is compared. */
function canonical(v: unknown): string {
  const sort = (x: unknown): unknown => (Array.isArray(x) ? x.map(sort) : isObj(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort(x[k])])) : x);
  return JSON.stringify(sort(v)) ?? 'null';
}

/** A manifest as data: text is parsed (text that is not YAML stays text). */
function dataOfManifest(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return parse(v) as unknown;
  } catch {
    return v;
  }
}

const digest = (v: unknown) => `sha256:${crypto().createHash('sha256').update(canonical(dataOfManifest(v))).digest('hex').slice(0, 12)}`;

function ambiguous(name: string, ids: readonly string[]): GshError {
  const err = new GshError(`${ids.length} live init templates are named ${JSON.stringify(name)} (${ids.join(', ')}): the file cannot say which one it means; nothing was changed`, Exit.conflict, 'Rename or delete all but one (gsh init templates update ID --name NEW, gsh init templates delete ID), then run again.');
  err.code = 'ambiguous_template_name';
  return err;
}

function byName(live: readonly LiveTemplate[]): Map<string, LiveTemplate[]> {
  const out = new Map<string, LiveTemplate[]>();
  for (const t of live) out.set(t.name, [...(out.get(t.name) ?? []), t]);
  return out;
}

export const templates: Kind<Items<TemplateDecl>, LiveTemplate[]> = {
  name: 'templates',
  summary: 'init templates of the account (name, description, manifest file)',
  compared: 'init templates by name, the manifest as data (comments and layout not compared)',
  written: 'per init template a create, update or delete',
  prunable: true,
  list: true,
  account: true,
  schema: itemsOrPruned(TEMPLATE, 'Init templates'),
  reads: [LIST, GET],
  writes: [CREATE, UPDATE, DELETE],
  writeOnly: [],
  normalise(value, from) {
    const { prune, items } = itemsOf<Record<string, unknown>>(value);
    return {
      prune,
      items: items.filter(isObj).map((t): TemplateDecl => ({
        name: String(t.name),
        ...(typeof t.description === 'string' ? { description: t.description } : {}),
        ...(typeof t.manifest === 'string' && from ? { manifest: { file: t.manifest, text: manifestText(from.file, t.manifest) } } : {}),
      })),
    };
  },
  // The listing; a template whose listing entry leaves out a declared field is read on its own too.
  readSpecs: () => [opSpec(LIST, {})],
  async read(client, _account, declared) {
    const { items } = await fetchAll(client, opSpec(LIST, {}));
    const live = items.filter(isObj).filter((t) => typeof t.name === 'string' && t.id !== undefined);
    const names = byName(live.map((t) => ({ id: String(t.id), name: t.name as string })));
    const wanted = declared === undefined ? undefined : new Map(declared.items.map((d) => [d.name, d]));
    const out: LiveTemplate[] = [];
    for (const entry of live) {
      let t: Record<string, unknown> = entry;
      const d = wanted?.get(t.name as string);
      const needed = wanted === undefined || (d !== undefined && names.get(d.name)!.length === 1);
      const missing = !('manifest' in t) || (!('description' in t) && (wanted === undefined || d?.description !== undefined));
      if (needed && missing) {
        const one = await dataOf(client, opSpec(GET, { template_id: String(t.id) }));
        // The template itself is the whole record: a description it does not carry is none.
        if (isObj(one)) t = { description: '', ...one };
      }
      out.push({
        id: String(t.id), name: t.name as string,
        ...(typeof t.description === 'string' ? { description: t.description } : t.description === null ? { description: '' } : {}),
        ...(t.manifest !== undefined && t.manifest !== null ? { manifest: t.manifest } : {}),
      });
    }
    return out;
  },
  // A description is taken into the file as it is; a manifest lives in a file of its own, which adopt does not rewrite.
  adopt: (field, raw) =>
    field.path.endsWith('.description')
      ? adoptItemField(raw, field, (t) => `templates[${String(t.name)}]`)
      : { refused: `${field.path} is a manifest file of its own: adopt does not rewrite it (gsh init templates get shows the live one)` },
  compare(declared, live, ctx) {
    const changes: Change[] = [];
    const notCompared: string[] = [];
    const found = byName(live);
    for (const t of declared.items) {
      const item = `templates[${t.name}]`;
      const same = found.get(t.name) ?? [];
      if (same.length > 1) throw ambiguous(t.name, same.map((x) => x.id).sort());
      const current = same[0];
      const text = t.manifest?.text;
      if (!current) {
        const fields: FieldDiff[] = [
          ...(t.description !== undefined ? [{ path: `${item}.description`, live: null, declared: t.description }] : []),
          { path: `${item}.manifest`, live: null, declared: `${t.manifest?.file ?? '?'} (${digest(text)})` },
        ];
        changes.push({ kind: 'templates', action: 'create', item, fields, spec: opSpec(CREATE, {}, { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), manifest: text }) });
        continue;
      }
      const fields: FieldDiff[] = [];
      const body: Record<string, unknown> = {};
      if (t.description !== undefined && !ctx.skip(`${item}.description`)) {
        if (current.description === undefined) notCompared.push(`${item}.description`);
        else if (current.description !== t.description) {
          fields.push({ path: `${item}.description`, live: current.description, declared: t.description });
          body.description = t.description;
        }
      }
      if (text !== undefined && !ctx.skip(`${item}.manifest`)) {
        if (current.manifest === undefined) notCompared.push(`${item}.manifest`);
        else if (canonical(dataOfManifest(current.manifest)) !== canonical(dataOfManifest(text))) {
          fields.push({ path: `${item}.manifest`, live: digest(current.manifest), declared: `${t.manifest!.file} (${digest(text)})` });
          body.manifest = text;
        }
      }
      if (fields.length) changes.push({ kind: 'templates', action: 'update', item, fields, spec: opSpec(UPDATE, { template_id: current.id }, body) });
    }
    const declaredNames = new Set(declared.items.map((t) => t.name));
    for (const t of live) {
      const item = `templates[${t.name}]`;
      if (declaredNames.has(t.name) || !declared.prune || ctx.skip(item)) continue;
      changes.push({
        kind: 'templates', action: 'delete', item, fields: [{ path: item, live: t.id, declared: null }],
        spec: opSpec(DELETE, { template_id: t.id }),
        ...(ctx.prune ? {} : { held: true as const, reason: { code: 'prune_not_requested' as const, flag: '--prune templates' } }),
      });
    }
    return { changes, notCompared };
  },
  export: (live) => {
    const paths = exportPaths(live);
    return live.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), manifest: paths.get(t.id)! }));
  },
  attachments: (live) => {
    const paths = exportPaths(live);
    return live.map((t) => {
      if (t.manifest === undefined) throw new GshError(`the service did not show the manifest of the init template ${JSON.stringify(t.name)} (${t.id}); nothing was exported`, Exit.someFailed);
      return { path: paths.get(t.id)!, text: typeof t.manifest === 'string' ? t.manifest : stringify(t.manifest) };
    });
  },
  check(value, at) {
    checkIdentities(value, at, 'templates', (t) => (typeof t.name === 'string' ? t.name : undefined), 'the init template', (t, path) => {
      if (typeof t.manifest !== 'string') return;
      const where = [...path, 'manifest'];
      const problem = manifestPathProblem(t.manifest);
      if (problem) return at.report('type', where, problem);
      let text: string;
      try {
        text = manifestText(at.file, t.manifest);
      } catch (err) {
        return at.report('required', where, (err as Error).message);
      }
      // init lint's own findings, each with its place in the manifest file.
      for (const p of lintBytes(Buffer.from(text, 'utf8'), 'paid').problems) {
        at.report(p.rule as RuleId, where, `${t.manifest}:${p.line}:${p.column}: ${p.message} (${p.rule}, paid caps)`);
      }
    });
  },
};

/** The manifest file of each template export writes: templates/<name>.yaml, each its own. */
function exportPaths(live: readonly LiveTemplate[]): Map<string, string> {
  const names = distinctNames(live, (t) => (safeFileName(t.name) === undefined ? undefined : `${safeFileName(t.name)}.yaml`), (t) => (safeFileName(t.id) === undefined ? undefined : `${safeFileName(t.name) ?? 'template'}--${safeFileName(t.id)}.yaml`));
  return new Map(live.map((t) => [t.id, `${EXPORT_DIR}/${names.get(t.id) ?? `${t.id}.yaml`}`]));
}
