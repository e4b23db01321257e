/**
 * Types matching NATS subject filters against the contract's event subjects, so a consumer is
 * typed by its filter: `EventDataMatching<'rdm.requests.request.>'>` is the union of the `data` of
 * every request event.
 *
 * When to use: the platform's `runConsumer` types its handler with it; use it directly when a
 * function handles the events of a filter. `*` matches one token (approximated as any text), `>`
 * the rest; a filter naming no contract subject (tests' private subjects) or typed only as
 * `string` gives `Record<string, unknown>`: pass the filter as a literal to get the types.
 */
import type { EventData, EventSubject } from '../gen/events.js';
import type { EventEnvelope } from './events.js';

/** The template literal type a NATS filter stands for (`>` and `*` become any text). */
export type FilterPattern<F extends string> = F extends `${infer P}.>`
  ? `${FilterPattern<P>}.${string}`
  : F extends `${infer A}*${infer B}`
    ? `${A}${string}${FilterPattern<B>}`
    : F;

/** The event subjects a NATS filter captures (none for a non-literal `string`: nothing is known of it). */
export type SubjectsMatching<F extends string> = string extends F ? never : Extract<EventSubject, FilterPattern<F>>;

/** The `data` of the events a filter captures; `Record<string, unknown>` when it names no contract subject (or is not a literal). */
export type EventDataMatching<F extends string> = [SubjectsMatching<F>] extends [never]
  ? Record<string, unknown>
  : EventData[SubjectsMatching<F>];

/**
 * The envelope of an event a filter captures, discriminated by `type`: checking `e.type` narrows
 * `e.data` to that subject's `EventData`. `EventEnvelope<Record<string, unknown>>` when the filter
 * names no contract subject.
 */
export type EnvelopeMatching<F extends string> = [SubjectsMatching<F>] extends [never]
  ? EventEnvelope<Record<string, unknown>>
  : { [S in SubjectsMatching<F>]: EventEnvelope<EventData[S]> & { type: S } }[SubjectsMatching<F>];
