import type { Feature } from '../feature.js';

// `columns` and `idField`: a list's default table columns, never guessed from the data, and the
// identifier `-q` prints (ARCHITECTURE.md "Output for scripts").

export const columns: Feature = {
  name: 'columns',
  reserves: () => ['quiet'],
  flags({ cmd, leaf: { op } }) {
    if (op.columns) cmd.option('-q, --quiet', `only each item's ${op.idField ?? 'id'} (id, uuid…: whatever its name), one a line`);
    else if (/ create$/.test(op.command)) cmd.option('-q, --quiet', 'only the created item\'s id (whatever its name; with --wait, when done)');
  },
  /** A list shows the default columns; a single object shows all its fields. */
  show: (op, data) => (Array.isArray(data) ? { columns: op.columns, idField: op.idField } : { idField: op.idField }),
};
