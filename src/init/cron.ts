// 5-field cron (minute hour day-of-month month day-of-week), as in classic crontab: numbers,
// `*`, ranges `a-b`, steps `/n`, lists `a,b`, month and weekday names, and `?` for "any day".

interface Field {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  readonly anyDay?: boolean;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31, anyDay: true },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 7, names: WEEKDAYS, anyDay: true },
];

function parseValue(text: string, field: Field): number | string {
  if (/^\d+$/.test(text)) {
    const value = Number(text);
    return value >= field.min && value <= field.max ? value : `${value} is outside ${field.min}-${field.max}`;
  }
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1;
  if (index !== -1) return field.names === MONTHS ? index + 1 : index;
  return `\`${text}\` is not a number${field.names ? ' or name' : ''}`;
}

function checkItem(item: string, field: Field): string | undefined {
  const [base = '', step, extra] = item.split('/');
  if (extra !== undefined) return `\`${item}\` has more than one step`;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) > 0)) return `step \`${step}\` must be a positive number`;
  if (base === '*' || (base === '?' && field.anyDay && step === undefined)) return undefined;
  const bounds = base.split('-');
  if (bounds.length > 2) return `\`${base}\` is not a range`;
  const values = bounds.map((bound) => parseValue(bound, field));
  const problem = values.find((value): value is string => typeof value === 'string');
  if (problem !== undefined) return problem;
  const [from = 0, to = from] = values as number[];
  return from > to ? `range \`${base}\` runs backwards` : undefined;
}

/** Why the expression is not a valid 5-field cron, or undefined when it is. */
export function cronProblem(expression: string): string | undefined {
  const parts = expression.trim().split(/\s+/).filter((part) => part !== '');
  if (parts.length !== FIELDS.length) {
    return `cron needs 5 fields (minute hour day-of-month month day-of-week), found ${parts.length}`;
  }
  for (const [i, part] of parts.entries()) {
    const field = FIELDS[i] as Field;
    for (const item of part.split(',')) {
      const problem = item === '' ? 'an empty list item' : checkItem(item, field);
      if (problem !== undefined) return `cron ${field.name} field \`${part}\`: ${problem}`;
    }
  }
  return undefined;
}
