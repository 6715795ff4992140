import type { Feature } from '../feature.js';
import { announce } from './announce.js';
import { body } from './body.js';
import { columns } from './columns.js';
import { confirmation } from './confirmation.js';
import { download } from './download.js';
import { form } from './form.js';
import { ifAbsent } from './if-absent.js';
import { keep } from './keep.js';
import { manifestLint } from './manifest-lint.js';
import { paging } from './paging.js';
import { pathArguments } from './path-arguments.js';
import { query } from './query.js';
import { raw } from './raw.js';
import { ready } from './ready.js';
import { servers } from './servers.js';
import { verbs } from './verbs.js';
import { wait } from './wait.js';

// Every operation feature, in the order each hook runs (ARCHITECTURE.md "Operation features"):
// the order of a command's arguments and flags in its help, of the checks while planning (the
// first problem found is the one reported), of the plan's steps, and of what happens around the
// request (the confirmation before the --if-absent lookup, --ready's watch just before sending).

export const FEATURES: readonly Feature[] = [
  pathArguments,
  servers,
  confirmation,
  query,
  keep,
  paging,
  columns,
  body,
  verbs,
  manifestLint,
  form,
  raw,
  ifAbsent,
  download,
  announce,
  ready,
  wait,
];
