import { describe, expect, it } from 'vitest';
import { streamsFor } from '../../../src/core/terminal/io.js';
import { fitWidths, Output } from '../../../src/core/terminal/output.js';
import { testContext } from '../../helpers/context.js';

// Tables read by their names (issue 50 item 4): at 80 columns the NAME column keeps names of up
// to 20 columns whole; other columns are cut, then dropped (the last first), before it is cut.
// Rows as `GET /servers` lists them (02-endpoints-part-a.md "Servers": id, name, application,
// plan, region, created_at).

function table(rows: object[], columns: readonly string[], width = 80) {
  const ctx = testContext({ env: { NO_COLOR: '1' }, tty: { stdout: true, stderr: true, columns: width } });
  return { out: new Output(streamsFor(ctx), 'table'), text: () => ctx.stdout.text(), err: () => ctx.stderr.text() };
}

const COLUMNS = ['id', 'name', 'application', 'plan', 'region', 'created_at'];
const row = (id: string, name: string) => ({ id, name, application: 'minecraft-java', plan: 'paid', region: 'ap-southeast', created_at: '2024-01-16T01:22:05.000Z' });

describe('names first at 80 columns', () => {
  it('servers list: 15 to 17 character names show whole; CREATED AT is cut instead', async () => {
    const t = table([row('04322d1f', 'ember-creek-2024x'), row('c2a8790c', 'amber-bastion-01'), row('390150f4', 'jade-summit-035')], COLUMNS);
    await t.out.show([row('04322d1f', 'ember-creek-2024x'), row('c2a8790c', 'amber-bastion-01'), row('390150f4', 'jade-summit-035')], { columns: COLUMNS });
    const lines = t.text().trimEnd().split('\n');
    for (const name of ['ember-creek-2024x', 'amber-bastion-01', 'jade-summit-035']) expect(lines.some((l) => l.includes(`  ${name}  `))).toBe(true);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    expect(lines[1]).toMatch(/^04322d1f {2}ember-creek-2024x {2}/);
  });

  it('when cutting is not enough, the last columns are dropped and stderr says which', async () => {
    const rows = [{ id: '04322d1f', name: 'ember-creek-2024x', application: 'a-very-long-application-slug', plan: 'paid-plan-with-long-name', region: 'ap-southeast-2-long', node: 'node-01-long-name', created_at: '2024-01-16T01:22:05.000Z' }];
    const cols = ['id', 'name', 'application', 'plan', 'region', 'node', 'created_at'];
    const t = table(rows, cols, 60);
    await t.out.show(rows, { columns: cols });
    const [header, line] = t.text().trimEnd().split('\n');
    expect(line).toContain('  ember-creek-2024x  ');
    expect(header).not.toContain('CREATED AT');
    for (const l of t.text().trimEnd().split('\n')) expect(l.length).toBeLessThanOrEqual(60);
    expect(t.err()).toMatch(/CREATED AT left out at 60 columns: a wider terminal or --columns shows (it|them)\./);
  });

  it('fitWidths: others cut first, then dropped (last first), then the name; ids never', () => {
    // id 8 (fixed), name 17 (kept), two others.
    expect(fitWidths([8, 17, 30, 30], 60, [true, false, false, false], [false, true, false, false])).toEqual([8, 17, 13, 14]);
    expect(fitWidths([8, 17, 30, 30], 44, [true, false, false, false], [false, true, false, false])).toEqual([8, 17, 13, 0]);
    // Nothing left to drop: the name is cut last, to its floor.
    expect(fitWidths([8, 30], 20, [true, false], [false, true])).toEqual([8, 8]);
    // A name longer than 20 is cut like any column down to 20, then the others are cut.
    expect(fitWidths([8, 40, 10], 46, [true, false, false], [false, true, false])).toEqual([8, 22, 10]);
    expect(fitWidths([8, 40, 10], 42, [true, false, false], [false, true, false])).toEqual([8, 20, 8]);
  });
});
