/**
 * The platform's raw HTTP/1.1 client (`services/_platform/src/testing/raw-http.ts`, exported by
 * `@rdm/platform/testing`) in the words of the e2e specs: a request whose body keeps coming while
 * the answer is already there, how the connection ends, several requests on one connection.
 * Why by path: e2e does not depend on the `@rdm/platform` workspace package; the file needs only
 * `node:net`.
 */
import { bodyParts, type RawExchange, rawExchange, requestHead } from '../../services/_platform/src/testing/raw-http.js';

export type { RawExchange, RawResponse } from '../../services/_platform/src/testing/raw-http.js';
export { parseResponses } from '../../services/_platform/src/testing/raw-http.js';

/** A request head with a Content-Length of `size` and no `Expect`; `headers` are added as given. */
export function head(method: string, path: string, host: string, size: number, headers: Record<string, string> = {}): string {
  return requestHead(method, path, host, size, headers);
}

/**
 * On one connection to `target`: write `first` (a head), then `size` body bytes in 1 MiB writes,
 * honouring back-pressure and never pausing for the answer (a client that keeps sending); then
 * each of `then` (complete requests); then end the connection. Resolves once `expect` answers
 * arrived and the connection closed, or after `timeoutMs`.
 */
export function sendWhileAnswered(
  target: { host: string; port: number },
  first: string,
  size: number,
  then: string[],
  expect: number,
  timeoutMs = 30_000,
): Promise<RawExchange> {
  return rawExchange(target, [first, ...bodyParts(size), ...then], { expect, timeoutMs });
}
