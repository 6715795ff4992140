// Names the manifest refers to, copied from the contract (01-general-contract.md).

// Event types, permission names and loaders are shared with the registry and the sandbox. The
// contract lists the permission names its endpoints use, not necessarily every permission, so an
// unlisted name is a warning rather than an error.
export { EVENT_TYPES, LOADERS, PERMISSIONS } from '../operations/vocabulary.js';

export const FINAL_STATES = ['running', 'stopped'] as const;

export const TASK_ACTIONS = ['command', 'power', 'backup'] as const;

export const CONTENT_SOURCES = ['provider_a', 'url'] as const;

/** The first line of every manifest. */
export const HEADER = '#service-init';
