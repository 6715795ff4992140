import type { ApiResponse } from '../../core/wire/http.js';
import { Exit, failedAfterApplied } from '../../core/errors.js';
import { step } from '../../core/plan.js';
import type { Work } from '../../core/fleet/follow.js';
import type { Feature } from '../feature.js';

// `wait`: `--wait` follows the 202's work (a job, the server status, a pull, a transfer, an init,
// a backup) to its end (core/fleet/follow.ts, core/fleet/wait.ts); without it, a 202 prints the `gsh wait`
// line that follows it later. On every mutation, --wait also waits for an approval the request
// needs, without a terminal too (core/run/person-must-act.ts): an agent's way to let its owner decide.

export const wait: Feature = {
  name: 'wait',
  reserves: () => ['wait'],
  flags({ cmd, leaf: { op } }) {
    if (op.wait) cmd.option('--wait', 'follow the result until it finishes (and wait for an approval it needs, without a terminal too)');
    else if (op.method !== 'GET') cmd.option('--wait', 'wait for an approval the request needs (its status polled within --timeout), without a terminal too');
  },
  spec(d, spec) {
    return d.local.wait === true && spec.method !== 'GET' ? { ...spec, waitsForApproval: true } : spec;
  },
  request(d) {
    const wait = d.leaf.op.wait;
    if (d.local.wait !== true) return;
    if (!wait) {
      // Here --wait means only this: a dry run says so.
      if (d.leaf.op.method !== 'GET') d.then.push(step('person', `if the service asks for the account owner's approval (403 approval_required): poll its status for at most ${d.rt.waitLimitMs / 1000} s (--timeout), terminal or not, then send the identical request once`));
      return;
    }
    d.follow = true;
    const what = wait.kind === 'job' ? `the job (${wait.poll})` : wait.kind === 'backup' ? `the backup (${wait.poll}) until its answer says it finished (a status, or completed_at)` : wait.kind === 'server-status' ? `the server status${d.rt.singleTarget ? ', read at once when the console socket (POST …/console/token, where the key may open it) says the state changed,' : ''}` : wait.kind === 'init' ? 'the provisioning job' : `the ${wait.kind}`;
    d.then.push(step('wait', `follow ${what} until it ends, for at most ${d.rt.waitLimitMs / 1000} s (--timeout)`));
  },
  async afterAnswer(x, res, data) {
    const { rt, p, out } = x;
    if (!p.follow) return;
    const { followOrInterrupt, followWork, waitCommand, workOf } = await import('../../core/fleet/follow.js');
    const answered = workOf(p.leaf.op, p.leaf.verb, p.params, data);
    if (!answered) return;
    const work = x.waitFor?.(answered) ?? answered;
    out.sent?.(waitCommand(work));
    let final: unknown;
    let socket: { close(): void } | undefined;
    try {
      const plain = async () => {
        if (!rt.singleTarget) return followWork(rt, p.client, work);
        // One server's state: the console socket's status events wake its polls (../state-watch.ts).
        const states = work.kind === 'server-state' ? (socket = await (await import('../state-watch.js')).watchStates(p.client, work.serverId)) : undefined;
        return followOrInterrupt(rt, p.client, work, states);
      };
      final = await (x.follow ? x.follow(work, plain) : plain());
    } catch (err) {
      throw await waitFailed(err, res, work);
    } finally {
      socket?.close();
    }
    if (final !== undefined) await out.show(final);
    return true;
  },
  async afterShow({ p, out }, res, data) {
    if (res.status !== 202 || !p.leaf.op.wait) return;
    const { waitCommand, workOf } = await import('../../core/fleet/follow.js');
    const work = workOf(p.leaf.op, p.leaf.verb, p.params, data);
    if (!work) return;
    // A backup whose answer shows no field saying when it ends: `gsh wait backup` could only stop
    // with exit 12, so the line names what can finish instead (its download, retried).
    if (work.kind === 'backup' && !(await import('../../core/fleet/wait.js')).backupShowsEnd((data ?? {}) as Record<string, unknown>)) {
      return out.note(`Its record shows no status, state or completed_at, so gsh cannot follow it. ${(await import('../../core/fleet/follow.js')).backupDownloadLoop(work)}`);
    }
    // Work under way: the command that follows it without sending the request again.
    out.note(`Follow it: ${waitCommand(work)}`);
  },
};

/**
 * A wait that failed (or was interrupted) after the service accepted the change: the change was
 * applied, so the error says so, names the step that failed and the `gsh wait` that resumes it,
 * instead of reading as a plain failure of the command.
 */
async function waitFailed(caught: unknown, res: ApiResponse<unknown>, work: Work): Promise<unknown> {
  const { waitCommand } = await import('../../core/fleet/follow.js');
  // A wait that cannot tell (exit 12) would stop the same way again: no resume line for it.
  return failedAfterApplied(caught, res.idempotencyKey, 'wait', (err) => (err.exitCode !== Exit.cannotTell ? waitCommand(work) : undefined));
}
