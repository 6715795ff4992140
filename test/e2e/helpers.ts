import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options, type Result } from 'execa';

/** What gsh() resolves to: text stdout and stderr (no encoding or line options are passed). */
export type GshResult = Result<{}>;
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

// The e2e harness: a real sandbox on a loopback port (real HTTP), the built bin/gsh run with
// execa, a temporary config dir per test file, and nothing left running afterwards.

export const GSH = fileURLToPath(new URL('../../bin/gsh.js', import.meta.url));

export interface E2E {
  sandbox: Sandbox;
  configDir: string;
  /** Environment for the CLI: base URL and all-scopes key unless overridden. */
  env(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
  gsh(args: string[], opts?: Options & { env?: Record<string, string | undefined> }): Promise<GshResult>;
  close(): Promise<void>;
}

export async function setup(opts: SandboxOptions = {}): Promise<E2E> {
  const sandbox = await startSandbox({ timeScale: 0.05, ...opts });
  const configDir = mkdtempSync(join(tmpdir(), 'gsh-e2e-'));
  const env = (extra: Record<string, string | undefined> = {}) => ({
    GSH_BASE_URL: sandbox.baseUrl,
    GSH_API_KEY: sandbox.keys.all,
    GSH_CONFIG_DIR: configDir,
    GSH_PROFILE: undefined,
    GSH_SERVER: undefined,
    GSH_TOKEN: undefined,
    NO_COLOR: '1',
    FORCE_COLOR: undefined,
    CI: undefined,
    ...extra,
  });
  return {
    sandbox,
    configDir,
    env,
    gsh: (args, o = {}) =>
      execa(process.execPath, [GSH, ...args], {
        reject: false,
        timeout: 60_000,
        ...o,
        env: env(o.env ?? {}),
        extendEnv: true,
      }) as unknown as Promise<GshResult>,
    close: async () => {
      await sandbox.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
