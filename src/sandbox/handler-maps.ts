import { asSpec, type HandlerMap, type HandlerSpec } from './handlers/types.js';
import { handlers as system } from './handlers/system.js';
import { handlers as applications } from './handlers/applications.js';
import { handlers as servers } from './handlers/servers.js';
import { handlers as power } from './handlers/power.js';
import { handlers as consoleNode } from './console-node/handlers.js';
import { handlers as files } from './handlers/files.js';
import { handlers as fileTools } from './handlers/file-tools.js';
import { handlers as hooks } from './handlers/hooks.js';
import { handlers as subusers } from './handlers/subusers.js';
import { handlers as properties } from './handlers/properties.js';
import { handlers as settings } from './handlers/settings.js';
import { handlers as startup } from './handlers/startup.js';
import { handlers as instances } from './handlers/instances.js';
import { handlers as players } from './handlers/players.js';
import { handlers as addons } from './handlers/addons.js';
import { handlers as customPacks } from './handlers/custom-packs.js';
import { handlers as modules } from './handlers/modules.js';
import { handlers as agent } from './agent/handlers.js';
import { handlers as init } from './handlers/init.js';
import { handlers as backups } from './handlers/backups.js';

// Specific handlers by family, from handlers/, agent/ and console-node/ (here, above them all,
// so that the handlers/ folder does not import the folders that build on it). A new family file
// (e.g. handlers/hooks.ts) exports `handlers` keyed by "METHOD /path/template" and is added here;
// its keys then win over the generic handler.
export const handlerMaps: readonly HandlerMap[] = [system, applications, servers, power, consoleNode, files, fileTools, hooks, subusers, properties, settings, startup, instances, players, addons, customPacks, modules, agent, init, backups];

/** Every specific handler as the router takes it: "METHOD /template" → its spec. */
export function handlerSpecs(): [string, HandlerSpec][] {
  return handlerMaps.flatMap((map) => Object.entries(map).map(([key, h]): [string, HandlerSpec] => [key, asSpec(h)]));
}
