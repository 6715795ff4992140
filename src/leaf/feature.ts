import type { Command } from 'commander';
import type { Leaf } from '../operations/leaves.js';
import type { Field, Operation } from '../operations/types.js';
import type { JsonObject, StdinText } from '../core/flags/fields.js';
import type { ApiClient, ApiResponse, QueryValue, RequestSpec } from '../core/wire/http.js';
import type { ShowOptions } from '../core/terminal/output.js';
import type { Plan, Step } from '../core/plan.js';
import type { Runtime } from '../core/run/runtime.js';
import type { Work } from '../core/fleet/follow.js';

// What an operation feature may hook into (ARCHITECTURE.md "Operation features"). A feature is
// one module of features/ with the hooks it needs; features/index.ts lists them in order, and the
// builder (commands/registry-commands.ts), the planner (plan.ts) and the executor (run.ts) call
// every feature's hook in that order. Only types are imported here: the builder loads the list
// on every command, so a module's flags and help hooks must stay cheap, and whatever is heavy
// is loaded with `await import()` inside the hook that needs it.

/** The parsed flags of the leaf being run (commander's `opts()`). */
export type Local = Record<string, unknown>;

/** Adding flags to one generated command. */
export interface FlagContext {
  cmd: Command;
  leaf: Leaf;
  /** Adds the flag of a declared query or body field (its help, its value parser). */
  addField(field: Field): void;
}

/** A feature's lines in a generated command's help footer. */
export interface HelpLines {
  /** Replaces the registry's example (verbs: the example names this verb). */
  example?: string;
  /** More examples after the registry's. */
  examples?: string[];
  /** Appended to the `METHOD /path` line. */
  request?: string;
  /** Lines after the request line, before the access lines (scope, permission). */
  api?: string[];
  /** Lines after the access lines. */
  notes?: string[];
}

/** What planning has gathered so far: every hook reads it and adds to it. */
export interface Draft {
  rt: Runtime;
  leaf: Leaf;
  local: Local;
  args: readonly string[];
  stdin: StdinText;
  /** A server already resolved (one target of a fleet). */
  target?: { id: string };
  query: Record<string, QueryValue>;
  /** The JSON body; undefined for methods that send none. */
  body?: JsonObject;
  /** Path values; `server_id` once the server is resolved. */
  params: Record<string, string>;
  /** The server reference as typed (or the fleet target's id). */
  serverRef?: string;
  /** The question asked on a terminal before sending. */
  confirm?: string;
  /** The run follows the answer's work to its end. */
  follow: boolean;
  /** Requests before and after the command's own (lookups, a signed URL's GET). */
  before: RequestSpec[];
  after: RequestSpec[];
  /** Steps shown after the requests, in order. */
  then: Step[];
  /** Values features plan for their own execute hooks (`slot()`). */
  state: Record<string, unknown>;
}

/** A planned run of one leaf (on one server). */
export interface OperationPlan {
  plan: Plan;
  leaf: Leaf;
  local: Local;
  client: ApiClient;
  spec: RequestSpec;
  params: Record<string, string>;
  follow: boolean;
  /** Asked on a terminal before sending (the contract's destructive operations). */
  confirm?: string;
  state: Record<string, unknown>;
  /** The server reference as typed, when its id came from the cache (a 404 looks it up again). */
  remembered?: string;
  /** The reference matched no name and its own request checks it as an id: remember it once answered. */
  confirmId?: () => void;
  /** That reference as typed: a 404 to the request means it names no server. */
  unchecked?: string;
}

/** Where one run's result goes: printed, or kept as a fleet target's result. */
export interface Sink {
  show(data: unknown, opts?: ShowOptions): Promise<void>;
  /** A document or text body, as it came. */
  document(body: unknown, contentType: string | undefined): void;
  /** Pages as they arrive (jsonl, -q), where the output allows it. */
  streamItems?(items: unknown[], opts: ShowOptions): void;
  /** --columns checked against a list's first page, before more pages are fetched. */
  checkColumns?(items: unknown[]): void;
  /** Notes about this run (hints, replays); a fleet keeps them out of its table. */
  note(message: string): void;
  /** The run's own request is answered; only following it (--wait) is left, which `resume` picks up later. */
  sent?(resume?: string): void;
  /** --ready's line came: a fleet entry carries it (`ready`). */
  ready?(ready: { line: string; seconds: number }): void;
}

/** One execution of a planned run. */
export interface Execution {
  rt: Runtime;
  p: OperationPlan;
  out: Sink;
  /** Sends with the plan's request, looking a remembered server up again on a 404. */
  send<T>(how: (p: OperationPlan) => Promise<T>): Promise<{ sent: T; p: OperationPlan }>;
  /** Default columns and identifier for `data` (a list, or one item). */
  showOptions(data: unknown): ShowOptions;
  /** Follows work in a feature's own way (--ready follows the console too); `plain` is the usual wait. */
  follow?: (work: Work, plain: () => Promise<unknown>) => Promise<unknown>;
  /** The work as a feature waits on it (--ready adds its console line), so a resume line names every condition. */
  waitFor?: (work: Work) => Work;
  /** Run when the request fails and before the result is shown (a console socket closed). */
  cleanups: (() => void)[];
}

/** A part of the run around every target's plan (--announce's countdown). */
export interface Stage {
  plan(plan: Plan): Promise<Plan>;
  /** Before any request of the run: undefined to go on, or the exit code to end with. */
  before(): Promise<number | undefined>;
  /** After before(), one target's run failed (before it rethrows): --announce tells its players. */
  failed?(targetId: string, err: unknown): Promise<void>;
}

export interface StageContext {
  rt: Runtime;
  leaf: Leaf;
  local: Local;
  targets: { id: string; label: string }[];
  parallel: number;
  /** The planner, for features that plan requests of other leaves (an announcement's `say`). */
  planLeaf(leaf: Leaf, local: Local, target: { id: string; stdin: StdinText }): Promise<OperationPlan>;
}

export interface Feature {
  name: string;
  /** Flag names no registry field may take on `op` (whether or not this op gets them). */
  reserves?(op: Operation): readonly string[];
  /** Adds the feature's arguments and flags; cheap, runs for every command built. */
  flags?(x: FlagContext): void;
  help?(leaf: Leaf): HelpLines;
  /** Planning, first: flags become values (query, body) and are checked. */
  values?(d: Draft): void | Promise<void>;
  /** Planning, then: path arguments, the server, the confirmation (the values are known). */
  targets?(d: Draft): void | Promise<void>;
  /** Shapes the command's one request (its server resolved, before its Idempotency-Key). */
  spec?(d: Draft, spec: RequestSpec): RequestSpec;
  /** Adds requests before or after it, `then` steps, following. */
  request?(d: Draft): void | Promise<void>;
  /** Rewrites the finished plan of one target. */
  refine?(p: OperationPlan, rt: Runtime): Promise<OperationPlan>;
  /** Checks a run on several servers before anything is planned. */
  fleet?(leaf: Leaf, local: Local): void;
  /** A stage around the whole run (single or many servers). */
  stage?(x: StageContext): Promise<Stage | undefined>;
  /** Output options the feature decides (columns, the id `-q` prints). */
  show?(op: Operation, data: unknown): ShowOptions;
  /** Before the request: true when the run is over (an existing item found). */
  beforeSend?(x: Execution): Promise<boolean | void>;
  /** Sends the request its own way (paged lists): true when it did. */
  send?(x: Execution): Promise<boolean>;
  /** The answer as it came: true when it is the result (a raw document). */
  document?(x: Execution, res: ApiResponse<unknown>): boolean;
  /** After the answer: true when the feature finished the run (a download, a wait). */
  afterAnswer?(x: Execution, res: ApiResponse<unknown>, data: unknown): Promise<boolean | void>;
  /** After the result is shown: notes on what to do next. */
  afterShow?(x: Execution, res: ApiResponse<unknown>, data: unknown): void | Promise<void>;
}

/** A typed place in `Draft.state` / `OperationPlan.state` for one feature's planned value. */
export function slot<T>(name: string): { get(p: { state: Record<string, unknown> }): T | undefined; set(d: { state: Record<string, unknown> }, value: T): void } {
  return {
    get: (p) => p.state[name] as T | undefined,
    set: (d, value) => void (d.state[name] = value),
  };
}
