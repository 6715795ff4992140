import type { ApiClient } from '../core/wire/http.js';
import type { Runtime } from '../core/run/runtime.js';
import { refresh } from './read.js';
import { DEFAULT_COLUMNS, recordOf } from './records.js';
import { initialState, shown, type SortKey, type TopState } from './state.js';

// `gsh top` for scripts (README "gsh top"): the screen's rows, in its default order (by name, or --sort), as
// records through the output layer. One snapshot and exit; or with -o jsonl and no --once, one
// snapshot every interval until Ctrl-C or SIGTERM, each line whole (a log shipper reads them).

const records = (state: TopState) => shown(state).map(recordOf);

export async function snapshot(rt: Runtime, client: ApiClient, only: ReadonlySet<string> | undefined, sort?: SortKey): Promise<void> {
  const state = initialState(false, sort);
  await refresh(state, client, () => rt.now(), only, undefined);
  await rt.out.show(records(state), { columns: DEFAULT_COLUMNS });
}

/** Never returns: Ctrl-C or SIGTERM ends it (exit 130 / 143) at a request or the pause between. */
export async function stream(rt: Runtime, client: ApiClient, only: ReadonlySet<string> | undefined, askedMs: number | undefined, sort?: SortKey): Promise<never> {
  const state = initialState(false, sort);
  let said: string | undefined;
  for (;;) {
    const interval = await refresh(state, client, () => rt.now(), only, askedMs);
    if (interval.note !== undefined && interval.note !== said) rt.note(interval.note);
    said = interval.note;
    await rt.out.show(records(state), { columns: DEFAULT_COLUMNS });
    await rt.sleep(interval.ms);
  }
}
