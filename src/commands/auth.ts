import type { Command } from 'commander';
import { staticCredential } from '../core/auth/credentials.js';
import { Exit, GshError, UsageError } from '../core/errors.js';
import { askLine, askSecret, readAllStdin } from '../core/person/ask.js';
import type { RequestSpec } from '../core/wire/http.js';
import { step } from '../core/plan.js';
import { type Runtime, withRuntime } from '../core/run/runtime.js';
import { assertConfigDirUsable, DEFAULT_PROFILE, profileName } from '../core/auth/store.js';
import type { AgentLoginOptions } from '../core/login/agent-login.js';

// `gsh auth …` (issue: "Auth store"). API keys are read from stdin or a hidden prompt, never
// argv, and verified with GET /me before anything is saved. `login --agent` and `claim` run the
// agent registration flow (src/core/login/agent-login.ts).


interface Me {
  account?: { id?: number; username?: string; [k: string]: unknown };
  key?: Record<string, unknown>;
  [k: string]: unknown;
}

const LOGIN_HELP = `
The API key is read from standard input when it is not a terminal, otherwise from a hidden
prompt. It is never taken from the command line. It is checked with GET /me before it is saved.

Examples:
  $ gsh auth login --base-url https://api.example.com/api/v2
  $ printf '%s' "$KEY" | gsh auth login --base-url https://api.example.com/api/v2 --profile ci
  $ gsh --profile ci auth status

Agents (--agent) register instead of using a key, with one of three methods:
  --email E          a person with that e-mail signs in and enters the code shown (opened in a
                     browser on an interactive desktop; never under CI or with --no-browser)
  --anonymous        a temporary account with one free server, deleted after 7 days unless
                     claimed with \`gsh auth claim --email E\`
  --assertion FILE   an identity assertion (ID-JAG) from a trusted identity provider, read from
                     FILE or from standard input with -
The identity assertion, access token and expiry are saved in the profile (mode 0600); the token
is renewed silently before it expires.

  $ gsh auth login --agent --email alex@example.com --base-url https://api.example.com/api/v2
  $ gsh auth login --agent --anonymous
  $ gsh auth login --agent --assertion id-jag.txt
  $ gsh auth login --agent --email alex@example.com --no-wait   # prints {user_code, ..., resume}
  $ gsh auth login --agent --resume                               # finishes it
`;

export function register(auth: Command): void {
  auth
    .command('login')
    .description('Save a base URL and API key in a profile (checked with GET /me), or register as an agent')
    .option('--agent', 'register as an agent (with --email, --anonymous or --assertion)')
    .option('--email <email>', 'agent: the person with this e-mail enters a code (service auth)')
    .option('--anonymous', 'agent: a temporary account with one free server')
    .option('--assertion <file>', 'agent: identity assertion (ID-JAG) from FILE, or - for stdin')
    .option('--no-browser', 'agent: never open a browser')
    .option('--no-wait', 'agent: print the code as one JSON object and exit; finish with --resume')
    .option('--resume', 'agent: finish a login started with --no-wait')
    .addHelpText('after', LOGIN_HELP)
    .action(async function (this: Command) {
      const opts = this.opts<AgentLoginOptions & { agent?: boolean }>();
      await withRuntime(this, async (rt) => {
        if (opts.agent) {
          const how = opts.resume ? 'finish the pending agent login' : `register as an agent (${opts.email !== undefined ? `a person with ${opts.email} enters a code` : opts.anonymous ? 'a temporary account' : 'an identity assertion'})`;
          const agentPlan = { requests: [], then: [step('person', `${how}: discovery, registration and the token grant; save the identity in profile "${profileName(rt.globals.profile, rt.env, rt.store.read())}"`)] };
          return rt.submit(agentPlan, async () => {
            const { agentLogin } = await import('../core/login/agent-login.js');
            await agentLogin(rt, opts);
          });
        }
        const agentOnly = [opts.email !== undefined && '--email', opts.anonymous && '--anonymous', opts.assertion !== undefined && '--assertion',
          opts.resume && '--resume', opts.wait === false && '--no-wait'].filter(Boolean);
        if (agentOnly.length) throw new UsageError(`${agentOnly.join(', ')} needs --agent`, 'Example: gsh auth login --agent --email alex@example.com');
        return login(rt);
      });
    });

  auth
    .command('claim')
    .description('Claim the temporary (anonymous) agent account for a person, then wait until they do')
    .requiredOption('--email <email>', 'e-mail of the person who completes the claim')
    .option('--no-browser', 'never open a browser')
    .option('--no-wait', 'print the code as one JSON object and exit; finish with `gsh auth login --agent --resume`')
    .addHelpText('after', `
Only the person signed in with that e-mail can complete the claim; the account and its server
then move into their account. Running it again refreshes the code (codes last 10 minutes).

Example:
  $ gsh auth claim --email alex@example.com`)
    .action(async function (this: Command) {
      const opts = this.opts<AgentLoginOptions & { email: string }>();
      await withRuntime(this, (rt) =>
        rt.submit({ requests: [], then: [step('person', `start a claim of the temporary account for ${opts.email}, then wait until they complete it`)] }, async () => {
          const { agentClaim } = await import('../core/login/agent-login.js');
          await agentClaim(rt, opts.email, opts);
        }));
    });

  auth
    .command('status')
    .description('Show the method (API key or agent), account, key or token expiry, and where the credential came from')
    .action(async function (this: Command) {
      await withRuntime(this, authStatus);
    });

  auth
    .command('token')
    .description('Print the bearer credential in use (for other tools; handle with care)')
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        await rt.client();
        return rt.submit({ requests: [], then: [step('local', `print the bearer of ${rt.auth?.source ?? 'the credential in use'}`)] }, async () => {
          const bearer = await rt.auth?.credential?.bearer();
          if (!bearer) throw new GshError('not logged in', Exit.auth, 'Run `gsh auth login`.');
          rt.io.stdout.write(`${bearer}\n`);
        });
      });
    });

  auth
    .command('logout')
    .description("Revoke the agent's access token, if any, and remove the profile's stored secrets")
    .action(async function (this: Command) {
      await withRuntime(this, logout);
    });

  auth
    .command('profiles')
    .alias('ls')
    .description('List profiles (no secrets)')
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        return rt.submit({ requests: [], then: [step('local', `list the profiles in ${rt.store.path}`)] }, async () => {
          const data = rt.store.read();
          const current = data.current ?? DEFAULT_PROFILE;
          const rows = Object.entries(data.profiles).map(([name, p]) => ({
            name,
            current: name === current,
            base_url: p.base_url,
            credential: p.api_key ? 'api key' : p.agent ? `agent (${p.agent.method})` : 'none',
          }));
          await rt.out.show(rows, { columns: ['name', 'current', 'base_url', 'credential'] });
        });
      });
    });

  auth
    .command('switch')
    .argument('<profile>', 'profile to make current')
    .description('Make a profile the current one')
    .action(async function (this: Command, name: string) {
      await withRuntime(this, async (rt) => {
        if (!rt.store.read().profiles[name]) throw new UsageError(`no profile named "${name}"`, 'List them with `gsh auth profiles`.');
        return rt.submit({ requests: [], then: [step('local', `make "${name}" the current profile in ${rt.store.path}`)] }, async () => {
          await rt.store.update((d) => (d.current = name));
          rt.note(`Current profile: ${name}`);
        });
      });
    });
}


async function readApiKey(rt: Runtime): Promise<string> {
  if (!rt.io.stdinTTY) return (await readAllStdin(rt.io)).trim();
  if (rt.globals.input === false) throw new UsageError('no API key: pipe it on standard input');
  return askSecret(rt, 'API key: ');
}

async function login(rt: Runtime): Promise<number | void> {
  const data = rt.store.read();
  // A config dir others can write to fails now, before the key is asked for and sent.
  assertConfigDirUsable(rt.env);
  const name = profileName(rt.globals.profile, rt.env, data);
  let baseUrl = rt.globals.baseUrl || rt.env.GSH_BASE_URL || data.profiles[name]?.base_url;
  if (!baseUrl && rt.interactive) baseUrl = await askLine(rt, 'Base URL (ends in /api/v2): ');
  if (!baseUrl) throw new UsageError('no base URL', 'Pass --base-url URL or set GSH_BASE_URL.');
  const key = await readApiKey(rt);
  if (!key) throw new UsageError('no API key was given', 'Pipe it on standard input or type it at the prompt.');
  if (/\s/.test(key)) throw new UsageError('the API key contains white space; give the key alone');

  const client = rt.newClient({ baseUrl, credential: staticCredential(key, 'login') });
  const check: RequestSpec = { method: 'GET', path: '/me' };
  const plan = { requests: [check], then: [step('local', `save the key in profile "${name}" of ${rt.store.path} (mode 0600)`)] };
  try {
    return await rt.submit(plan, async () => {
      // Saved only after a 2xx in the API's envelope: a redirect, a login page or other JSON proves nothing.
      const { envelopeData } = await import('../core/wire/envelope.js');
      const res = await client.request(check);
      const data = envelopeData(res);
      if (data === null || typeof data !== 'object' || Array.isArray(data)) {
        const what = data === undefined ? 'no body' : `${data === null ? 'null' : Array.isArray(data) ? 'an array' : `a ${typeof data}`} as "data"`;
        throw new GshError(`the key was not saved: GET /me answered HTTP ${res.status} with ${what}, not the account`, Exit.error);
      }
      const me = data as Me;
      await rt.store.update((d) => {
        d.profiles[name] = { base_url: client.baseUrl, api_key: key };
        d.current ??= name;
      });
      const who = me.account?.username ?? me.account?.id ?? 'unknown account';
      rt.note(`Logged in to ${client.baseUrl} as ${String(who)} (profile "${name}", saved in ${rt.store.path}).`);
    });
  } finally {
    await client.close();
  }
}

/** `gsh auth status` and `gsh whoami`: who the credential in use is, and why it was chosen. */
export async function authStatus(rt: Runtime): Promise<number | void> {
  const client = await rt.client();
  const check: RequestSpec = { method: 'GET', path: '/me' };
  return rt.submit({ requests: [check], then: [step('local', `show where the credential came from: ${rt.auth?.source}`)] }, async () => {
    const me = ((await client.request<{ data?: Me }>(check)).body?.data ?? {}) as Me;
    // Read after the request: the agent token may just have been renewed.
    const data = rt.store.read();
    if (data.current !== undefined && !data.profiles[data.current]) {
      rt.warn(`"current" names the profile "${data.current}", which does not exist in ${rt.store.path}; \`gsh auth switch NAME\` picks another`);
    }
    const profile = rt.auth?.profile ?? DEFAULT_PROFILE;
    const agent = rt.auth?.source.includes('(agent)') ? data.profiles[profile]?.agent : undefined;
    const summary: Record<string, unknown> = {
      base_url: client.baseUrl,
      source: rt.auth?.source,
      chosen_by: rt.auth?.chosenBy,
      profile,
      method: agent ? `agent (${agent.method})` : 'api key',
      account: me.account,
    };
    if (me.key) summary.key = { ...me.key };
    if (agent) {
      Object.assign(summary, { token_expires_at: agent.expires_at, claimed: agent.claimed === true });
      if (!agent.claimed) summary.note = 'temporary account: deleted after 7 days unless claimed (`gsh auth claim --email E`)';
      if (agent.account_expires_at) summary.account_expires_at = agent.account_expires_at;
    }
    await rt.out.show(summary);
  });
}

async function logout(rt: Runtime): Promise<number | void> {
  const data = rt.store.read();
  const name = profileName(rt.globals.profile, rt.env, data);
  const profile = data.profiles[name];
  if (!profile || (!profile.api_key && !profile.agent)) {
    rt.note(`Profile "${name}" holds no credential.`);
    return;
  }
  const revoke = profile.agent?.access_token ? [step('person', "revoke the agent's access token (POST to the token revocation endpoint)")] : [];
  return rt.submit({ requests: [], then: [...revoke, step('local', `remove the credential of profile "${name}" from ${rt.store.path}`)] }, async () => {
    const agent = profile.agent;
    let revoked = false;
    if (agent?.access_token && profile.base_url) {
      const { revokeAccessToken } = await import('../core/login/agent-logout.js');
      revoked = await revokeAccessToken(rt, profile.base_url, agent);
    }
    await rt.store.update((d) => {
      const p = d.profiles[name];
      if (p) {
        delete p.api_key;
        delete p.agent;
      }
    });
    rt.note(`${revoked ? "Revoked the agent's access token and removed" : 'Removed'} the credential of profile "${name}".`);
  });
}
export const operations = { 'auth login': ['GET /me'], 'auth status': ['GET /me'] } satisfies import('./hand-written.js').OperationUses;
