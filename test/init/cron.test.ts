import { describe, expect, it } from 'vitest';
import { cronProblem } from '../../src/init/cron.js';

// "5-field `cron`" (01-general-contract.md, "Init manifest"), read as classic crontab fields:
// minute 0-59, hour 0-23, day of month 1-31, month 1-12 or JAN-DEC, day of week 0-7 or SUN-SAT.

describe('cronProblem', () => {
  it.each([
    '* * * * *', '0 4 * * *', '*/15 * * * *', '0 0 1 1 0', '59 23 31 12 7', '0 9-17/2 * * MON-FRI',
    '0 0 1,15 jan,Jul ?', '5 4 * * sun', '0 0 ? * 1', '  0  4 * * *  ', '30 6 1-31/5 2-11 1-5', '0 */6 * * *',
  ])('accepts %j', (expression) => {
    expect(cronProblem(expression)).toBeUndefined();
  });

  it.each([
    ['', /5 fields.*found 0/],
    ['@daily', /5 fields.*found 1/],
    ['* * * *', /found 4/],
    ['0 0 * * * *', /found 6/],
    ['60 * * * *', /minute field `60`: 60 is outside 0-59/],
    ['* 24 * * *', /hour field `24`: 24 is outside 0-23/],
    ['* * 0 * *', /day of month field `0`: 0 is outside 1-31/],
    ['* * 32 * *', /day of month .*outside 1-31/],
    ['* * * 0 *', /month field `0`: 0 is outside 1-12/],
    ['* * * 13 *', /month .*outside 1-12/],
    ['* * * * 8', /day of week field `8`: 8 is outside 0-7/],
    ['*/0 * * * *', /step `0` must be a positive number/],
    ['*/x * * * *', /step `x`/],
    ['1/2/3 * * * *', /more than one step/],
    ['5-1 * * * *', /range `5-1` runs backwards/],
    ['1-2-3 * * * *', /not a range/],
    ['1,,2 * * * *', /empty list item/],
    ['? * * * *', /minute field `\?`: `\?` is not a number/],
    ['* * * FOO *', /month field `FOO`: `FOO` is not a number or name/],
    ['* * * * MON-XYZ', /`XYZ` is not a number or name/],
    ['L * * * *', /`L` is not a number/],
  ])('rejects %j', (expression, why) => {
    expect(cronProblem(expression)).toMatch(why);
  });
});
