import type { Kind } from '../kind.js';
import { configs } from './configs.js';
import { hooks } from './hooks.js';
import { properties } from './properties.js';
import { settings } from './settings.js';
import { startup } from './startup.js';
import { subusers } from './subusers.js';
import { templates } from './templates.js';

// Every kind gsh config can declare, in the order a server's writes are made and files are
// written (README "Configuration as code"); the account's kinds (Kind.account) run after every
// server's. Adding a kind is adding its file and a line here.

export const KINDS: readonly Kind[] = [settings, properties, startup, configs, hooks, subusers, templates] as Kind[];

export const KIND_NAMES: readonly string[] = KINDS.map((k) => k.name);
export const PRUNABLE_NAMES: readonly string[] = KINDS.filter((k) => k.prunable).map((k) => k.name);

export function kindNamed(name: string): Kind | undefined {
  return KINDS.find((k) => k.name === name);
}
