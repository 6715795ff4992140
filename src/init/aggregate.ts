// Rules that span several fields: plan caps on sums, duplicates, and the contract's known
// limitations (01-general-contract.md, "Init manifest" and "Caps by plan"). They read the values
// the walker accepted, so a wrong-typed field (already reported) is simply not counted.

import { capValue, formatBytes, formatCap, type CapName, type Tier } from './caps.js';
import { decodedBase64Size, isBase64 } from './checks.js';
import type { PathSegment } from './field-path.js';
import type { RuleId } from './rules.js';
import type { PlainObject } from './walk.js';

export type Report = (rule: RuleId, path: readonly PathSegment[], message: string) => void;

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function object(value: unknown): PlainObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as PlainObject) : undefined;
}

/** Bytes a `files` entry writes: UTF-8 of `content`, or what `content_base64` decodes to. */
function fileSize(entry: PlainObject): [key: string, bytes: number] | undefined {
  if (typeof entry['content'] === 'string') return ['content', Buffer.byteLength(entry['content'], 'utf8')];
  const encoded = entry['content_base64'];
  if (typeof encoded === 'string' && isBase64(encoded)) {
    return ['content_base64', decodedBase64Size(encoded)];
  }
  return undefined;
}

function overCap(report: Report, tier: Tier, cap: CapName, actual: number, path: PathSegment[], what: string): void {
  if (actual <= capValue(cap, tier)) return;
  const shown = cap === 'pluginsAndMods' ? String(actual) : formatBytes(actual);
  report('plan-cap', path, `${what} is ${shown}; the ${tier} plan allows ${formatCap(cap, tier)}`);
}

function contentCaps(manifest: PlainObject, tier: Tier, report: Report): void {
  const plugins = list(manifest['plugins']);
  const mods = list(manifest['mods']);
  const where = mods.length > 0 ? 'mods' : 'plugins';
  overCap(report, tier, 'pluginsAndMods', plugins.length + mods.length, [where], 'the number of plugins + mods entries');
}

function fileCaps(manifest: PlainObject, tier: Tier, report: Report): void {
  let total = 0;
  for (const [i, item] of list(manifest['files']).entries()) {
    const entry = object(item);
    const size = entry && fileSize(entry);
    if (!size) continue;
    total += size[1];
    overCap(report, tier, 'singleFile', size[1], ['files', i, size[0]], `\`files[${i}]\` decoded size`);
  }
  overCap(report, tier, 'allFiles', total, ['files'], 'the size of all files');
}

function assetCaps(manifest: PlainObject, tier: Tier, report: Report): void {
  const total = list(manifest['assets'])
    .map((item) => object(item)?.['size'])
    .reduce<number>((sum, size) => sum + (typeof size === 'number' && size > 0 ? size : 0), 0);
  overCap(report, tier, 'assetsTotal', total, ['assets'], 'the total size of assets');
}

function contentEntries(manifest: PlainObject): [PathSegment[], PlainObject][] {
  return (['plugins', 'mods'] as const).flatMap((section) =>
    list(manifest[section]).flatMap((item, i): [PathSegment[], PlainObject][] => {
      const entry = object(item);
      return entry ? [[[section, i], entry]] : [];
    }));
}

/** "Known limitations" in 01-general-contract.md, "Init manifest". */
function knownLimitations(manifest: PlainObject, report: Report): void {
  const entries = contentEntries(manifest);
  const providerEntry = entries.find(([, entry]) => entry['source'] === 'provider_a');
  if (providerEntry) {
    report('provider-skip', [...providerEntry[0], 'source'],
      'provider_a entries may be skipped with a warning in some configurations (known limitation); use `source: url` with a checksum where it matters');
  }
  if (!entries.some(([, entry]) => entry['source'] === 'url')) return;
  for (const [i, item] of list(manifest['assets']).entries()) {
    if (object(item)?.['extract'] !== true) continue;
    report('archives-skipped', ['assets', i, 'extract'],
      'this archive will be skipped: a manifest that mixes direct plugin/mod downloads with extractable assets applies only the direct files (known limitation)');
  }
}

function assetAdvice(manifest: PlainObject, report: Report): void {
  for (const [i, item] of list(manifest['assets']).entries()) {
    const asset = object(item);
    if (!asset) continue;
    if (!['sha256', 'sha512', 'sha1'].some((key) => key in asset)) {
      report('no-checksum', ['assets', i], `\`assets[${i}]\` has no checksum; add sha256 (recommended) so a changed download is caught`);
    }
    if ('extract_path' in asset && asset['extract'] !== true) {
      report('extract-path-ignored', ['assets', i, 'extract_path'], '`extract_path` has no effect unless `extract: true`');
    }
  }
}

function normalisePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/\/{2,}/g, '/').replace(/^(\.\/)+/, '').replace(/\/$/, '');
}

function duplicatePaths(manifest: PlainObject, report: Report): void {
  const seen = new Map<string, number>();
  for (const [i, item] of list(manifest['files']).entries()) {
    const entry = object(item);
    if (typeof entry?.['path'] !== 'string') continue;
    const key = normalisePath(entry['path']);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else if (entry['append'] !== true) {
      report('duplicate-path', ['files', i, 'path'], `\`files[${first}]\` already writes \`${entry['path']}\`; this entry replaces it (set \`append: true\` to add to it)`);
    }
  }
}

/** Reports the second and later occurrence of each key; `shown` names it in the message. */
function duplicates(items: [path: PathSegment[], key: string | undefined, shown?: string][], what: string, report: Report): void {
  const seen = new Set<string>();
  for (const [path, key, shown = key] of items) {
    if (key === undefined) continue;
    if (seen.has(key)) report('duplicate-entry', path, `${what} \`${shown}\` is listed twice`);
    seen.add(key);
  }
}

function scalarKey(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

function duplicateEntries(manifest: PlainObject, report: Report): void {
  duplicates(contentEntries(manifest).map(([path, entry]) => {
    const what = scalarKey(entry['source'] === 'url' ? entry['url'] : entry['id']);
    return [path, what === undefined ? undefined : `${String(entry['source'])} ${what}`, what];
  }), 'download', report);
  duplicates(list(manifest['schedules']).map((item, i) =>
    [['schedules', i, 'name'], scalarKey(object(item)?.['name'])]), 'schedule name', report);
  for (const [i, item] of list(manifest['hooks']).entries()) {
    duplicates(list(object(item)?.['events']).map((event, j) => [['hooks', i, 'events', j], scalarKey(event)]), 'event', report);
  }
  for (const [i, item] of list(manifest['access']).entries()) {
    duplicates(list(object(item)?.['permissions']).map((name, j) => [['access', i, 'permissions', j], scalarKey(name)]), 'permission', report);
  }
}

export function checkAggregates(manifest: PlainObject, tier: Tier, report: Report): void {
  contentCaps(manifest, tier, report);
  fileCaps(manifest, tier, report);
  assetCaps(manifest, tier, report);
  knownLimitations(manifest, report);
  assetAdvice(manifest, report);
  duplicatePaths(manifest, report);
  duplicateEntries(manifest, report);
}
