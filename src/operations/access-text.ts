import type { Operation, PermissionMap, PermissionRule, ScopeRule } from './types.js';

// The one text form of an operation's scope and server permission, for --help, man pages and
// `gsh reference`, e.g. "file.update; file.delete (mode clean)".

export interface AccessText {
  scope?: string;
  permission?: string;
}

export function accessText(op: Pick<Operation, 'scope' | 'permission'>): AccessText {
  return {
    ...(op.scope !== undefined ? { scope: scopeText(op.scope) } : {}),
    ...(op.permission !== undefined ? { permission: permissionText(op.permission) } : {}),
  };
}

function scopeText(rule: ScopeRule): string {
  return typeof rule === 'string' ? rule : rule.allOf.join(' and ');
}

function permissionText(rule: PermissionRule): string {
  if (typeof rule === 'string') return rule;
  const parts: string[] = [];
  if (rule.allOf?.length) parts.push(rule.allOf.join(' and '));
  if (rule.byField) parts.push(...grouped(rule.byField, (names) => names.join(', ')));
  if (rule.byValue) parts.push(...grouped(rule.byValue.values, (values) => `${rule.byValue!.field} ${values.join(', ')}`));
  if (rule.onServer) parts.push(`${rule.onServer.allOf.join(' and ')} on the server in ${rule.onServer.field}`);
  return parts.join('; ');
}

/** One part per distinct permission set, naming what needs it: "settings.edit (timezone, stop_command)". */
function grouped(map: PermissionMap, when: (names: string[]) => string): string[] {
  const byNeed = new Map<string, string[]>();
  for (const [name, needs] of Object.entries(map)) {
    const key = needs.join(' and ');
    byNeed.set(key, [...(byNeed.get(key) ?? []), name]);
  }
  return [...byNeed].map(([needs, names]) => `${needs} (${when(names)})`);
}
