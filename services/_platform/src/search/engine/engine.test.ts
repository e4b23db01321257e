/**
 * The bounds `DslEngine.search` puts on every search, over a recording client: the engine's own
 * `timeout` below the client's, the engine's timeout answer (shapes recorded from OpenSearch 2.19 with
 * `allow_partial_search_results=false`) → 503, a 200 `timed_out` → 503 (never partial counts), a
 * determinization refusal → `QuerySyntaxError` (400), and a client gone → the call aborted, 499.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../errors.js';
import { requestScope } from '../../request-scope.js';
import { QuerySyntaxError } from '../ast.js';
import { parseQuery } from '../parser.js';
import { DEFAULT_SEARCH_STATEMENT_TIMEOUT_MS, setSearchStatementTimeout } from '../pg-read.js';
import { buildQuery, REGEX_MAX_DETERMINIZED_STATES } from './dsl.js';
import { DslEngine, type LowLevel } from './engine.js';
import type { DslFieldMap, SearchRequest } from './port.js';

const FIELDS: DslFieldMap = { id: { kind: 'keyword', path: 'id' } };
const REQ: SearchRequest = { query: parseQuery('/a.*/'), fields: FIELDS, sort: [], from: 0, size: 10 };
const OK = { timed_out: false, hits: { total: { value: 0 }, hits: [] } };

/** A client whose `search` records its arguments and answers with `answer`. */
function engineOver(answer: (signal?: AbortSignal) => Promise<unknown>, requestTimeoutMs = 5000) {
  const calls: { body: Record<string, unknown>; signal?: AbortSignal }[] = [];
  const ll = {
    search: (_index: string, body: Record<string, unknown>, signal?: AbortSignal) => {
      calls.push({ body, signal });
      return answer(signal);
    },
  } as unknown as LowLevel;
  return { engine: new DslEngine('opensearch', ll, requestTimeoutMs), calls };
}

/** An error as the official clients raise it for an engine answer. */
const engineError = (statusCode: number, error: unknown) =>
  Object.assign(new Error('ResponseError'), { name: 'ResponseError', meta: { statusCode, body: { error, status: statusCode } } });

afterEach(() => setSearchStatementTimeout(DEFAULT_SEARCH_STATEMENT_TIMEOUT_MS));

describe('DslEngine.search bounds', () => {
  it('should send the search statement timeout as the engine timeout, below the client timeout', async () => {
    const { engine, calls } = engineOver(async () => OK, 5000);
    setSearchStatementTimeout(3000);
    await engine.search('x', REQ);
    expect(calls[0].body.timeout).toBe('3000ms');
    setSearchStatementTimeout(5000);
    await engine.search('x', REQ);
    expect(calls[1].body.timeout).toBe('4500ms');
  });

  it.each([
    [
      'a query phase over its time',
      { root_cause: [{ type: 'query_phase_execution_exception', reason: 'Time exceeded' }], type: 'search_phase_execution_exception' },
    ],
    [
      'a rewrite over its time',
      { root_cause: [{ type: 'time_exceeded_exception', reason: null }], type: 'search_phase_execution_exception' },
    ],
  ])('should answer 503 "took too long" for %s (a 500 of the engine), never 500', async (_what, error) => {
    const { engine } = engineOver(() => Promise.reject(engineError(500, error)));
    const err = await engine.search('x', REQ).catch((e) => e);
    expect(isAppError(err) && { status: err.status, message: err.message }).toEqual({
      status: 503,
      message: 'The search took too long; please refine it.',
    });
  });

  it('should answer 503 rather than partial hits when the engine says timed_out', async () => {
    const { engine } = engineOver(async () => ({ timed_out: true, hits: { total: { value: 3 }, hits: [] } }));
    const err = await engine.search('x', REQ).catch((e) => e);
    expect(isAppError(err) && err.status).toBe(503);
  });

  it('should turn a regexp over the determinization budget (400 of the engine) into a QuerySyntaxError', async () => {
    const error = {
      root_cause: [
        {
          type: 'query_shard_exception',
          reason: 'failed to create query: Determinizing .{0,16}x.{0,16} would require more than 2000 effort.',
        },
      ],
      type: 'search_phase_execution_exception',
    };
    const { engine } = engineOver(() => Promise.reject(engineError(400, error)));
    await expect(engine.search('x', REQ)).rejects.toBeInstanceOf(QuerySyntaxError);
  });

  it('should bound the determinization of every regexp clause, text and keyword', () => {
    const fields: DslFieldMap = { ...FIELDS, title: { kind: 'text', path: 'title' } };
    expect(buildQuery(parseQuery('/ab.*/'), fields)).toEqual({
      regexp: { search_text: { value: 'ab.*', max_determinized_states: REGEX_MAX_DETERMINIZED_STATES } },
    });
    expect(buildQuery(parseQuery('title:/ab.*/'), fields)).toEqual({
      regexp: { title: { value: 'ab.*', max_determinized_states: REGEX_MAX_DETERMINIZED_STATES } },
    });
    expect(buildQuery(parseQuery('id:/ab.*/'), fields)).toEqual({
      regexp: { id: { value: 'ab.*', case_insensitive: true, max_determinized_states: REGEX_MAX_DETERMINIZED_STATES } },
    });
  });

  it('should abort the engine call when the client goes away, and answer 499', async () => {
    const { engine, calls } = engineOver(
      (signal) =>
        new Promise((_resolve, reject) => {
          // As the clients do: an aborted request rejects with RequestAbortedError (an "engine down" name).
          signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'RequestAbortedError' })));
        }),
    );
    // The response of a request in flight: its connection closes before the answer was written.
    const res = Object.assign(new EventEmitter(), { writableFinished: false, destroyed: false, socket: { destroyed: false } });
    const ctx = { res } as never;
    let err: unknown;
    await requestScope()(ctx, async () => {
      const pending = engine.search('x', REQ).catch((e) => e);
      await new Promise((r) => setTimeout(r, 10));
      res.emit('close');
      err = await pending;
    });
    expect(calls[0].signal?.aborted).toBe(true);
    expect(isAppError(err) && err.status).toBe(499);
  });
});
