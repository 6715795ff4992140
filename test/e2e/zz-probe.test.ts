import { it } from 'vitest';
import { setup } from './helpers.js';
it('probe', async () => {
  const t = await setup({ servers: 3, clock: 'fast', hostile: true });
  const tty = { stdout: true, stderr: true, columns: 80 };
  for (const argv of [['servers', 'list'], ['servers', 'list', '-o', 'csv'], ['top', '--once'], ['servers', 'get', '-s', [...t.sandbox.state.servers.keys()][0]!], ['me']]) {
    const r = await t.gsh(argv, { env: { NO_COLOR: undefined, TERM: 'xterm' }, tty });
    console.log(argv.join(' '), r.exitCode, JSON.stringify(r.stdout).slice(0, 1500), JSON.stringify(r.stderr).slice(0, 500));
  }
  await t.close();
});
