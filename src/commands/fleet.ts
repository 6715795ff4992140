import type { Command } from 'commander';
import { Exit } from '../core/errors.js';
import { step } from '../core/plan.js';
import { withRuntime } from '../core/run/runtime.js';
import type { OperationUses } from './hand-written.js';

// `gsh fleet report` (README "Rollouts"): the journals of one rollout's runs (a CI matrix's
// shards, a run and its resume) merged into one summary. Nothing here talks to the service.

const HELP = `
Every server a run named, with its last outcome in any of the journals (the later one wins):
ok, failed, interrupted, or not_run (named by a run, never finished). Exit 11 when any server
failed or did not run, 0 when every one is ok.

Examples:
  gsh power restart -s 'lobby-*' --batch 1,25% --wait --journal restart.jsonl --yes
  gsh fleet report restart.jsonl
  gsh fleet report shard-*.jsonl -o json
`;

export function register(cmd: Command): void {
  cmd
    .command('report')
    .description('Merge the journals of fleet runs (--journal) into one summary; exit 11 when any server failed or did not run')
    .argument('<journal...>', 'journal files, e.g. the artefacts of a CI matrix\'s shards')
    .addHelpText('after', HELP)
    .action(async function (this: Command, files: string[]) {
      await withRuntime(this, async (rt) => {
        const plan = { requests: [], then: [step('local', `merge ${files.length} journal${files.length === 1 ? '' : 's'}: ${files.join(', ')}`)] };
        // A dry run reads nothing, as the offline commands' (commands/offline.ts).
        if (rt.dryRun) return rt.submit(plan, async () => {});
        const { mergeJournals } = await import('../core/fleet/journal.js');
        // Read and checked before anything is printed: a file that is not a journal is a usage error.
        const report = mergeJournals(files);
        return rt.submit(plan, async () => {
          if (rt.format === 'table' && rt.globals.jq === undefined) {
            await rt.out.show(report.map((r) => ({
              server: r.server_id, name: r.server_name ?? '', result: r.status === 'not_run' ? 'not run' : r.status === 'ok' ? 'ok' : `${r.status} (exit ${r.exit_code}${r.outcome && r.outcome !== 'not_applied' ? `, ${r.outcome}` : ''})`,
              detail: r.message ?? '', at: r.at ?? '',
            })), { columns: ['server', 'name', 'result', 'detail', 'at'] });
          } else await rt.out.show(report);
          const count = (s: string) => report.filter((r) => r.status === s).length;
          const bad = report.length - count('ok');
          rt.note(`${report.length} server${report.length === 1 ? '' : 's'}: ${count('ok')} ok, ${count('failed')} failed, ${count('interrupted')} interrupted, ${count('not_run')} did not run`);
          const lines = report.flatMap((r) => (r.status !== 'ok' && (r.resume ?? r.replay) ? [`  ${r.resume ?? r.replay}`] : []));
          if (lines.length) rt.note(`Changes sent, not finished; finish with:\n${lines.join('\n')}`);
          return bad ? Exit.someFailed : Exit.ok;
        });
      });
    });
}

export const operations: OperationUses = { 'fleet report': [] };
