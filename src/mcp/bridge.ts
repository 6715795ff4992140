import { ApiError, Exit, exitCodeForApi, GshError, NetworkError } from '../core/errors.js';
import type { RuntimeView } from '../core/run/runtime-view.js';
import type { Audit } from './audit.js';
import { NoAnswerError, ServiceLink } from './link.js';
import { errorAnswer, isNotification, isRequest, isResponse, RPC, type RpcId, type RpcMessage } from './messages.js';
import type { Policy, ToolInfo } from './policy.js';

// The relay between an MCP client and the service (README "AI clients (MCP)"): messages from the
// client go to the service through the link (link.ts) and back; the bridge adds only what gsh
// owes the person: the policy gate on tools/list and tools/call alike (policy.ts), a tool call
// sent at most once and bounded by --tool-timeout, approvals waited for as the REST path waits
// (core/run/person-must-act.ts) and the identical call repeated once approved, progress and
// cancellation passed through, an audit line per call (audit.ts), and every failure turned into
// an answer in gsh's words with the next step: the client never waits on silence.

export interface BridgeOptions {
  link: ServiceLink;
  policy: Policy;
  toolTimeoutMs: number;
  audit?: Audit;
  /** The profile (or environment) the credential came from, for the audit and the hints. */
  profile: string;
  /** `gsh auth login …` for this profile: the next step after a refused credential. */
  loginLine: string;
  /** The run: its clock, its client for approval polls, its --debug trace. */
  rt: RuntimeView;
  /** A message to the client. */
  write(message: RpcMessage): void;
}

/** What one tools/call ended as (the audit's outcome; `mcp call`'s exit code). */
export interface CallEnd {
  answer: RpcMessage | undefined;
  outcome: string;
  /** The exit code `gsh mcp call` gives it. */
  exitCode: number;
}

const APPROVAL_CODES = new Set(['approval_required', 'approval_pending']);

/** The status an error code stands for (a tool error carries the code, not the status), for gsh's exit codes. */
function statusOf(code: string): number {
  if (code === 'not_found') return 404;
  if (code === 'unauthorized') return 401;
  if (code === 'forbidden' || code.startsWith('insufficient_') || code.endsWith('_forbidden')) return 403;
  if (code.endsWith('conflict')) return 409;
  return 400;
}

/** The error envelope a tool error carries (structured content, else its text as JSON), if any. */
export function toolErrorEnvelope(result: Record<string, unknown> | undefined): { error: Record<string, unknown>; request_id?: string } | undefined {
  if (!result || result.isError !== true) return undefined;
  const structured = result.structuredContent as { error?: unknown } | undefined;
  if (structured && typeof structured.error === 'object' && structured.error !== null) return structured as { error: Record<string, unknown> };
  for (const part of (result.content as { type?: string; text?: string }[] | undefined) ?? []) {
    if (part.type !== 'text' || typeof part.text !== 'string') continue;
    try {
      const parsed = JSON.parse(part.text) as { error?: unknown };
      if (typeof parsed.error === 'object' && parsed.error !== null) return parsed as { error: Record<string, unknown> };
    } catch {
      // Plain text: no envelope.
    }
  }
  return undefined;
}

/** A tool error in gsh's words (the client shows it to the person and the model). */
function gshToolError(text: string, code: string): Record<string, unknown> {
  return { content: [{ type: 'text', text: `gsh: ${text}` }], isError: true, _meta: { 'gsh/outcome': code } };
}

export class Bridge {
  /** Tools as the service listed them (name → annotations): what the gate judges calls by. */
  private readonly catalogue = new Map<string, ToolInfo>();
  private listedAll = false;
  /** The client confirms destructive calls through elicitation (its initialize said so). */
  private confirms = false;
  /** Tool calls under way by the client's request id: a notifications/cancelled aborts one. */
  private readonly calls = new Map<string, AbortController>();
  /** The bridge's own requests to the client (elicitation), by id. */
  private readonly own = new Map<string, (m: RpcMessage) => void>();
  /** The last progress value sent for each token, so the bridge's own progress keeps rising. */
  private readonly progress = new Map<string, number>();
  private ownIds = 0;

  constructor(private readonly o: BridgeOptions) {}

  /** What the service sent besides an answer: progress and its own requests go to the client as they are. */
  fromService(m: RpcMessage): void {
    if (m.method === 'notifications/progress') {
      const token = JSON.stringify(m.params?.progressToken);
      if (typeof m.params?.progress === 'number') this.progress.set(token, Math.max(this.progress.get(token) ?? 0, m.params.progress));
    }
    this.o.write(m);
  }

  /** One message from the client. Resolves when it has been answered (or passed on). */
  async fromClient(m: RpcMessage): Promise<void> {
    if (isResponse(m)) {
      const mine = this.own.get(String(m.id));
      if (mine) return mine(m);
      await this.passOn(m);
      return;
    }
    if (isNotification(m)) {
      if (m.method === 'notifications/cancelled') {
        const call = this.calls.get(JSON.stringify(m.params?.requestId));
        if (call) return call.abort('cancelled');
      }
      await this.passOn(m);
      if (m.method === 'notifications/initialized') this.o.link.opened();
      return;
    }
    if (!isRequest(m)) return this.o.write(errorAnswer(m.id, RPC.invalidRequest, 'gsh: not a JSON-RPC request, notification or response'));
    try {
      switch (m.method) {
        case 'initialize':
          this.confirms = typeof (m.params?.capabilities as { elicitation?: unknown } | undefined)?.elicitation === 'object';
          return this.o.write(await this.answerOf(m));
        case 'tools/list':
          return this.o.write(await this.listPage(m));
        case 'tools/call':
          // call() writes its own answer (none when the client cancelled it).
          await this.call(m);
          return;
        default:
          return this.o.write(await this.answerOf(m));
      }
    } catch (err) {
      this.o.write(errorAnswer(m.id, RPC.server, this.words(err)));
    }
  }

  /** A page of tools/list with what the gate hides left out (its cursor kept: the next page is the service's). */
  private async listPage(m: RpcMessage): Promise<RpcMessage> {
    const answer = await this.answerOf(m);
    const tools = answer.result?.tools;
    if (!Array.isArray(tools)) return answer;
    for (const t of tools as ToolInfo[]) this.catalogue.set(t.name, t);
    if (answer.result?.nextCursor === undefined && m.params?.cursor === undefined) this.listedAll = true;
    return { ...answer, result: { ...answer.result, tools: (tools as ToolInfo[]).filter((t) => this.o.policy.tool(t, this.confirms).allowed) } };
  }

  /** Every tool the gate lets through, every page followed (`mcp tools`, and a call of a tool not listed yet). */
  async allTools(): Promise<ToolInfo[]> {
    const shown: ToolInfo[] = [];
    let cursor: unknown;
    for (let page = 0; page < 1000; page++) {
      const answer = await this.listPage({ jsonrpc: '2.0', id: `gsh-list-${++this.ownIds}`, method: 'tools/list', ...(cursor !== undefined ? { params: { cursor } } : {}) });
      if (answer.error) throw new GshError(`the service refused tools/list: ${answer.error.message}`);
      shown.push(...((answer.result?.tools as ToolInfo[] | undefined) ?? []));
      cursor = answer.result?.nextCursor;
      if (cursor === undefined) break;
    }
    this.listedAll = true;
    return shown;
  }

  private async answerOf(m: RpcMessage, signal?: AbortSignal): Promise<RpcMessage> {
    const { answer } = await this.o.link.send(m, signal);
    return answer ?? errorAnswer(m.id, RPC.internal, 'gsh: the service sent no answer');
  }

  private async passOn(m: RpcMessage): Promise<void> {
    try {
      await this.o.link.send(m);
    } catch (err) {
      this.o.rt.warn(`could not pass ${m.method ?? 'a response'} on to the service: ${this.words(err)}`);
    }
  }

  /**
   * One tools/call: the gate, then the call sent once within --tool-timeout, an approval waited
   * for and the identical call repeated once, the audit line. Always answers the client (unless
   * the client cancelled it, which owes no answer).
   */
  async call(m: RpcMessage): Promise<CallEnd> {
    const started = Date.now();
    const name = String(m.params?.name ?? '');
    const args = m.params?.arguments as Record<string, unknown> | undefined;
    const requestIds: string[] = [];
    const key = JSON.stringify(m.id);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort('timeout'), this.o.toolTimeoutMs);
    this.calls.set(key, abort);
    let end: CallEnd;
    try {
      end = await this.gatedCall(m, name, args, abort.signal, requestIds, started);
    } catch (err) {
      end = this.failed(m, err, abort.signal, name);
    } finally {
      clearTimeout(timer);
      this.calls.delete(key);
    }
    if (end.outcome === 'timed_out' || end.outcome === 'cancelled') {
      // The service may still run it: tell it to stop (MCP "Cancellation"), at most once.
      void this.passOn({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: m.id, reason: end.outcome === 'timed_out' ? 'gsh --tool-timeout' : 'cancelled by the client' } });
    }
    if (end.answer) this.o.write(end.answer);
    try {
      await this.o.audit?.write({ time: new Date(started).toISOString(), profile: this.o.profile, tool: name, outcome: end.outcome, duration_ms: Date.now() - started, request_ids: requestIds, arguments: args ?? {} });
    } catch (err) {
      this.o.rt.warn(`the audit line was not written: ${(err as Error).message}`);
    }
    return end;
  }

  private refused(m: RpcMessage, reason: string, next: string): CallEnd {
    return { answer: { jsonrpc: '2.0', id: m.id!, result: gshToolError(`refused: ${reason}; the call was not sent. To allow it, ${next}.`, 'refused') }, outcome: 'refused', exitCode: Exit.permission };
  }

  private async gatedCall(m: RpcMessage, name: string, args: Record<string, unknown> | undefined, signal: AbortSignal, requestIds: string[], started: number): Promise<CallEnd> {
    if (!this.catalogue.has(name) && !this.listedAll) await this.allTools();
    const tool = this.catalogue.get(name);
    if (!tool) return { answer: errorAnswer(m.id, RPC.invalidParams, `gsh: the service lists no tool named ${JSON.stringify(name)}; \`gsh mcp tools\` lists them`), outcome: 'unknown_tool', exitCode: Exit.notFound };
    const verdict = this.o.policy.tool(tool, this.confirms);
    if (!verdict.allowed) return this.refused(m, verdict.reason, verdict.next);
    const scope = this.o.policy.call(args);
    if (!scope.allowed) return this.refused(m, scope.reason, scope.next);
    if (verdict.confirm && !(await this.confirmed(name, args, signal))) {
      return this.refused(m, `${name} is destructive and the person did not confirm it`, 'confirm it when asked, or start the bridge with --allow-destructive');
    }
    let message = m;
    for (let round = 0; ; round++) {
      const sent = await this.o.link.send(message, signal);
      requestIds.push(...sent.requestIds);
      const answer = sent.answer ? { ...sent.answer, id: m.id! } : errorAnswer(m.id, RPC.internal, 'gsh: the service sent no answer');
      if (answer.error) return { answer, outcome: 'error', exitCode: Exit.error };
      const envelope = toolErrorEnvelope(answer.result);
      const code = typeof envelope?.error.code === 'string' ? envelope.error.code : undefined;
      if (!envelope || !code) return { answer, outcome: answer.result?.isError === true ? 'tool_error' : 'ok', exitCode: answer.result?.isError === true ? Exit.error : Exit.ok };
      if (!APPROVAL_CODES.has(code) || round > 0) return { answer, outcome: 'tool_error', exitCode: exitCodeForApi(statusOf(code), code) };
      await this.awaitApproval(m, envelope, signal, this.o.toolTimeoutMs - (Date.now() - started));
      // Approved: the identical call once more, under an id of its own (an id is used once per session).
      message = { ...m, id: `gsh-approved-${++this.ownIds}` };
    }
  }

  /** Waits for the approval as the REST path does, within what is left of --tool-timeout, with progress notifications saying where to approve. */
  private async awaitApproval(m: RpcMessage, envelope: { error: Record<string, unknown>; request_id?: string }, signal: AbortSignal, leftMs: number): Promise<void> {
    const { waitForApproval } = await import('../core/run/person-must-act.js');
    const err = new ApiError(403, { ...envelope.error, code: String(envelope.error.code), message: String(envelope.error.message ?? envelope.error.code) }, envelope.request_id);
    const token = (m.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const say = (message: string) => {
      if (token === undefined) return;
      const key = JSON.stringify(token);
      const progress = (this.progress.get(key) ?? 0) + 1;
      this.progress.set(key, progress);
      this.o.write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress, message } });
    };
    // The wait's --timeout is what is left of --tool-timeout.
    const view = Object.create(this.o.rt, { waitLimitMs: { value: Math.max(0, leftMs) } }) as RuntimeView;
    const stopped = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    stopped.catch(() => {});
    const approved = await Promise.race([
      waitForApproval(view, err, { method: 'POST', path: '/mcp', waitsForApproval: true }, {
        waiting: ({ actionUrl }) => say(`waiting for the account owner's approval${actionUrl ? ` at ${actionUrl}` : ''}; gsh repeats the call once it is approved`),
        polled: (status) => say(`approval: ${status ?? 'no status yet'}`),
      }),
      stopped,
    ]);
    if (!approved) throw new GshError('the approval was not given', Exit.personMustAct);
  }

  /** Asks the person through the client (elicitation) whether to run a destructive tool. */
  private confirmed(name: string, args: unknown, signal: AbortSignal): Promise<boolean> {
    const id = `gsh-confirm-${++this.ownIds}`;
    return new Promise<boolean>((resolve) => {
      const done = (yes: boolean) => {
        this.own.delete(id);
        resolve(yes);
      };
      signal.addEventListener('abort', () => done(false), { once: true });
      this.own.set(id, (answer) => {
        const r = answer.result as { action?: string; content?: { confirm?: unknown } } | undefined;
        done(r?.action === 'accept' && r.content?.confirm === true);
      });
      this.o.write({
        jsonrpc: '2.0', id, method: 'elicitation/create',
        params: {
          message: `Run ${name}? It is marked destructive. Arguments: ${JSON.stringify(args ?? {})}`,
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: `Run ${name}`, description: 'It may delete or overwrite data.' } }, required: ['confirm'] },
        },
      });
    });
  }

  /** A call that failed, as the answer the client gets: the failure in gsh's words and the next step. */
  private failed(m: RpcMessage, err: unknown, signal: AbortSignal, name: string): CallEnd {
    const answer = (text: string, outcome: string, exitCode: number): CallEnd => ({ answer: { jsonrpc: '2.0', id: m.id!, result: gshToolError(text, outcome) }, outcome, exitCode });
    if (signal.aborted && signal.reason === 'cancelled') return { answer: undefined, outcome: 'cancelled', exitCode: Exit.interrupted };
    if (signal.aborted && signal.reason === 'timeout') {
      return answer(`${name} ran past --tool-timeout ${Math.round(this.o.toolTimeoutMs / 1000)}s and was cancelled; it may have been applied, so check before calling it again (a longer --tool-timeout waits longer).`, 'timed_out', Exit.timedOut);
    }
    if (err instanceof NetworkError || err instanceof NoAnswerError) {
      return answer(`the answer to ${name} was lost (${err.message}); the call may have been applied. gsh never sends a tool call twice: check with a read tool before calling it again.`, 'lost', Exit.unavailable);
    }
    if (err instanceof GshError && err.exitCode === Exit.personMustAct) return answer(this.words(err), String((err as ApiError).code ?? 'approval_failed'), Exit.personMustAct);
    if (err instanceof GshError && err.exitCode === Exit.timedOut) {
      return answer(`${this.words(err)} (within --tool-timeout ${Math.round(this.o.toolTimeoutMs / 1000)}s); the call was not sent again`, 'timed_out', Exit.timedOut);
    }
    return answer(this.words(err), 'error', err instanceof GshError ? err.exitCode : Exit.error);
  }

  /** gsh's words for a failure, with its next step. */
  words(err: unknown): string {
    if (err instanceof ApiError && err.status === 401) {
      return `the service refused the credential of ${this.o.profile} (HTTP 401${err.requestId ? `, request ${err.requestId}` : ''}): it was revoked, expired or is unknown. Log in again: ${this.o.loginLine}`;
    }
    if (err instanceof GshError) return `${err.message}${err instanceof ApiError && err.requestId ? ` (request ${err.requestId})` : ''}${err.hint ? `. ${err.hint}` : ''}`;
    return `internal error: ${(err as Error)?.message ?? String(err)}`;
  }
}
