/** The JetStream stream of the requests service: request events, never `rdm.requests.rpc.*`. */

/** Stream name. */
export const REQUESTS_STREAM = 'REQUESTS';

/** Subjects the REQUESTS stream captures. */
export const REQUESTS_STREAM_SUBJECTS = ['rdm.requests.request.>'];
