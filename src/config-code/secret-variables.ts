import { UsageError } from '../core/errors.js';

// Which variables a declaration may send as a webhook secret (README "Configuration as code"):
// files come from pull requests, so `${env:NAME}` may not name gsh's own variables (`GSH_*`: the
// key, the token) nor any variable that holds the credential gsh runs with, or a file could send
// the key to a URL of its choosing. Lint reports the first offline (lint.ts rule
// `secret-variable`); apply refuses both before any request.

/** gsh's own variables, whatever their case (Windows reads names so). */
export const GSH_VARIABLE = /^GSH_/i;

/** The message for a secret that names one of gsh's own variables, or undefined. */
export function gshVariableProblem(name: string): string | undefined {
  return GSH_VARIABLE.test(name) ? `\${env:${name}} names one of gsh's own variables: a webhook secret may not be gsh's key or token; name a variable of your own` : undefined;
}

/**
 * apply, before any request: a usage error naming each file whose secret (files.ts
 * secretVariablesOf) is one of gsh's
 * variables or a variable holding the same value as the credential in the environment
 * (GSH_API_KEY, GSH_TOKEN).
 */
export function refuseCredentialSecrets(secrets: readonly { path: string; name: string }[], env: NodeJS.ProcessEnv): void {
  const credentials = [env.GSH_API_KEY, env.GSH_TOKEN].filter((v): v is string => typeof v === 'string' && v !== '');
  const bad = secrets
    .filter(({ name }) => GSH_VARIABLE.test(name) || (env[name] !== undefined && credentials.includes(env[name]!)))
    .map(({ path, name }) => `${path}: \${env:${name}}`);
  if (bad.length) {
    throw new UsageError(`a webhook secret may not be gsh's credential: ${[...new Set(bad)].join(', ')}; nothing was sent`, 'Give the webhook a secret of its own in a variable of your own.');
  }
}
