/** The JetStream stream of the users service: user and token events, never `rdm.users.rpc.*`. */

/** Stream name. */
export const USERS_STREAM = 'USERS';

/** Subjects the USERS stream captures. */
export const USERS_STREAM_SUBJECTS = ['rdm.users.user.>', 'rdm.users.token.>'];
