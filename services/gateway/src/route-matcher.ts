/**
 * Compiled matcher of the routing table: a segment trie walked once per request (no regex scan
 * over every route). `resolve(method, path)` says where a request goes, or why it cannot go:
 * `not_found` (no pattern matches the path) or `method_not_allowed` (patterns match, none serves
 * the method; `allow` lists what they serve).
 *
 * Matching rules: a trailing slash is ignored; empty and dot segments (`//`, `/./`, `/../`)
 * never match; literal segments win over `{param}`, which wins over `{param+}` (shortest first).
 */
import type { Method, RouteSpec, ServiceName } from './routes.js';

/** A route ready for matching. */
export interface CompiledRoute {
  readonly spec: RouteSpec;
  readonly service: ServiceName;
  readonly upload: boolean;
  /** Methods served, HEAD included when GET is. */
  readonly methods: ReadonlySet<string>;
}

/** Outcome of resolving one request. */
export type Resolution = { kind: 'route'; route: CompiledRoute } | { kind: 'not_found' } | { kind: 'method_not_allowed'; allow: string[] };

interface Node {
  literal: Map<string, Node>;
  param?: Node;
  /** Node reached after a `{x+}` segment (it consumed one or more segments). */
  greedy?: Node;
  routes: CompiledRoute[];
}

const newNode = (): Node => ({ literal: new Map(), routes: [] });

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Split a request path into segments; null when it can never match (empty or dot segments). */
export function splitPath(path: string): string[] | null {
  if (path.length === 0 || path.charCodeAt(0) !== 47 /* / */) return null;
  let p = path;
  if (p.length > 1 && p.charCodeAt(p.length - 1) === 47) p = p.slice(0, -1);
  const segs = p.slice(1).split('/');
  for (const s of segs) {
    if (s === '' || s === '.' || s === '..') return p === '/' ? [] : null;
  }
  return segs;
}

/** The compiled routing table. */
export class RouteMatcher {
  private readonly root = newNode();
  /** Every compiled route, in table order. */
  readonly routes: CompiledRoute[] = [];

  constructor(specs: readonly RouteSpec[]) {
    for (const spec of specs) this.add(spec);
  }

  private add(spec: RouteSpec): void {
    const methods = new Set<string>(spec.methods as Method[]);
    if (methods.has('GET')) methods.add('HEAD');
    const route: CompiledRoute = { spec, service: spec.service, upload: spec.upload === true, methods };
    let node = this.root;
    for (const seg of spec.pattern.slice(1).split('/')) {
      if (seg.startsWith('{') && seg.endsWith('+}')) node = node.greedy ??= newNode();
      else if (seg.startsWith('{') && seg.endsWith('}')) node = node.param ??= newNode();
      else {
        let next = node.literal.get(seg);
        if (!next) {
          next = newNode();
          node.literal.set(seg, next);
        }
        node = next;
      }
    }
    node.routes.push(route);
    this.routes.push(route);
  }

  /** Every route whose pattern matches `path`, most specific first. */
  match(path: string): CompiledRoute[] {
    const segs = splitPath(path);
    const out: CompiledRoute[] = [];
    if (segs) walk(this.root, segs, 0, out);
    return out;
  }

  /** Where `method path` goes: a route, 404 or 405 with the allowed methods. */
  resolve(method: string, path: string): Resolution {
    const matches = this.match(path);
    if (matches.length === 0) return { kind: 'not_found' };
    for (const r of matches) if (r.methods.has(method)) return { kind: 'route', route: r };
    return { kind: 'method_not_allowed', allow: allowedMethods(matches) };
  }
}

/** Union of the methods of `routes` (plus OPTIONS), in a stable order. */
export function allowedMethods(routes: CompiledRoute[]): string[] {
  const all = new Set<string>(['OPTIONS']);
  for (const r of routes) for (const m of r.methods) all.add(m);
  return METHOD_ORDER.filter((m) => all.has(m));
}

function walk(node: Node, segs: string[], i: number, out: CompiledRoute[]): void {
  if (i === segs.length) {
    for (const r of node.routes) out.push(r);
    return;
  }
  const lit = node.literal.get(segs[i]);
  if (lit) walk(lit, segs, i + 1, out);
  if (node.param) walk(node.param, segs, i + 1, out);
  if (node.greedy) for (let j = i + 1; j <= segs.length; j++) walk(node.greedy, segs, j, out);
}
