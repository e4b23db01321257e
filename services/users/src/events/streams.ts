/** The JetStream stream of the users service (proto/services.json): user and token events, never `rdm.users.rpc.*`. */
import { STREAMS } from '@rdm/contracts';

/** Stream name. */
export const USERS_STREAM = STREAMS.USERS.name;

/** Subjects the USERS stream captures. */
export const USERS_STREAM_SUBJECTS = STREAMS.USERS.subjects;
