/**
 * Event contracts as the platform uses them: the schemas, their loading and the envelope type
 * live in `@rdm/contracts` (proto/); this module turns a contract violation into the platform's
 * error (an event a service builds wrong is a bug: 500 `invalid_event`).
 *
 * When to use: `writeOutbox` calls `validateEvent` for you; call it directly only for events
 * built elsewhere (tests checking what a consumer received).
 */
import { checkEvent, type EventEnvelope, isContractError } from '@rdm/contracts';
import { AppError } from './errors.js';

export { envelopeSchema, type EventEnvelope, eventSubjects, eventsDir, registerEventSchema } from '@rdm/contracts';

/**
 * Throw a 500-type `AppError` (code `invalid_event`) naming the subject when `envelope` does
 * not match the schema of `subject` at `envelope.version`, or when there is no such schema.
 */
export function validateEvent(subject: string, envelope: unknown): asserts envelope is EventEnvelope {
  try {
    checkEvent(subject, envelope);
  } catch (err) {
    if (isContractError(err)) throw new AppError('invalid_event', 500, err.message);
    throw err;
  }
}
