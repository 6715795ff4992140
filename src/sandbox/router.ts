import type { HttpMethod, Operation } from '../operations/types.js';
import type { RouteInfo, RouteTable } from './route-table.js';

// Routes come from the operation registry (whatever families exist at start) plus the keys of the
// specific handler maps. A request path matches a template segment by segment; `{name}` and
// `<name>` segments are parameters. When several templates match, literal segments win over
// parameters from left to right (`/servers/{id}/files/trash` beats `/servers/{id}/files/{x}`).

/** `Spec`: what serves the route when it is not the generic handler (handlers/types.ts HandlerSpec). */
export interface Route<Spec> extends RouteInfo {
  segments: string[];
  spec?: Spec;
}

export type RouteMatch<Spec> =
  | { kind: 'found'; route: Route<Spec>; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' }
  | { kind: 'bad_path' };

const paramName = (seg: string): string | undefined => /^[{<]([^}>]+)[}>]$/.exec(seg)?.[1];

export const splitPath = (p: string): string[] => p.split('/').filter((s) => s !== '');

export class Router<Spec> implements RouteTable {
  readonly routes: Route<Spec>[] = [];
  private readonly byKey = new Map<string, Route<Spec>>();
  /** Every template (any method), for structure questions the generic handler asks. */
  readonly templates = new Set<string>();

  /** `specs`: "METHOD /template" → what serves it. */
  constructor(ops: readonly Operation[], specs: Iterable<readonly [string, Spec]>) {
    for (const op of ops) this.add(op.method, op.path).op = op;
    for (const [key, spec] of specs) {
      const [method, template] = key.split(' ');
      if (!method || !template) throw new Error(`bad handler key ${key}`);
      this.add(method, template).spec = spec;
    }
  }

  private add(method: string, template: string): Route<Spec> {
    const key = `${method} ${template}`;
    let r = this.byKey.get(key);
    if (!r) {
      r = { method, template, segments: splitPath(template) };
      this.byKey.set(key, r);
      this.routes.push(r);
      this.templates.add(template);
    }
    return r;
  }

  get(method: HttpMethod | string, template: string): Route<Spec> | undefined {
    return this.byKey.get(`${method} ${template}`);
  }

  match(method: string, path: string): RouteMatch<Spec> {
    let segs: string[];
    try {
      segs = splitPath(path).map((s) => decodeURIComponent(s));
    } catch {
      return { kind: 'bad_path' };
    }
    let best: { route: Route<Spec>; score: string; params: Record<string, string> } | undefined;
    const allow = new Set<string>();
    for (const route of this.routes) {
      if (route.segments.length !== segs.length) continue;
      const params: Record<string, string> = {};
      let score = '';
      let ok = true;
      for (let i = 0; i < segs.length; i++) {
        const t = route.segments[i]!;
        const name = paramName(t);
        if (name !== undefined) {
          if (segs[i] === '') ok = false;
          params[name] = segs[i]!;
          score += '0';
        } else if (t === segs[i]) score += '1';
        else ok = false;
        if (!ok) break;
      }
      if (!ok) continue;
      if (route.method !== method) {
        allow.add(route.method);
        continue;
      }
      if (!best || score > best.score) best = { route, score, params };
    }
    if (best) return { kind: 'found', route: best.route, params: best.params };
    if (allow.size) return { kind: 'method_not_allowed', allow: [...allow].sort() };
    return { kind: 'not_found' };
  }
}
