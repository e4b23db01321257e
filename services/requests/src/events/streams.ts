/** The JetStream stream of the requests service (proto/services.json): request events, never `rdm.requests.rpc.*`. */
import { STREAMS } from '@rdm/contracts';

/** Stream name. */
export const REQUESTS_STREAM = STREAMS.REQUESTS.name;

/** Subjects the REQUESTS stream captures. */
export const REQUESTS_STREAM_SUBJECTS = STREAMS.REQUESTS.subjects;
