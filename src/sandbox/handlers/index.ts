import type { HandlerMap } from './types.js';
import { handlers as system } from './system.js';
import { handlers as applications } from './applications.js';
import { handlers as servers } from './servers.js';
import { handlers as power } from './power.js';
import { handlers as consoleNode } from '../console-node/handlers.js';
import { handlers as files } from './files.js';
import { handlers as fileTools } from './file-tools.js';
import { handlers as hooks } from './hooks.js';
import { handlers as subusers } from './subusers.js';
import { handlers as properties } from './properties.js';
import { handlers as settings } from './settings.js';
import { handlers as startup } from './startup.js';
import { handlers as instances } from './instances.js';
import { handlers as players } from './players.js';
import { handlers as addons } from './addons.js';
import { handlers as customPacks } from './custom-packs.js';
import { handlers as modules } from './modules.js';
import { handlers as agent } from '../agent/handlers.js';
import { handlers as init } from './init.js';
import { handlers as backups } from './backups.js';

// Specific handlers by family. A new family file (e.g. hooks.ts) exports `handlers` keyed by
// "METHOD /path/template" and is added here; its keys then win over the generic handler.
export const handlerMaps: readonly HandlerMap[] = [system, applications, servers, power, consoleNode, files, fileTools, hooks, subusers, properties, settings, startup, instances, players, addons, customPacks, modules, agent, init, backups];

export { genericHandler } from './generic.js';
