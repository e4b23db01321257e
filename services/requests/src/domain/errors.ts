/** Error catalog of the requests service (InvenioRDM's messages); shared errors come from `Errors`. */
import { AppError, Errors } from '@rdm/platform';

/** Requests errors. */
export const RequestErrors = {
  /** 404 for an unknown (or deleted, or malformed) request id. */
  notFound: () => Errors.notFound('Not found.', 'request_not_found'),
  /** 404 for an unknown comment id. */
  eventNotFound: () => Errors.notFound('Not found.', 'event_not_found'),
  /** 400 for an action the type lacks. */
  noSuchAction: (action: string) => new AppError('no_such_action', 400, `Error for action '${action}': No such action available`),
  /** 400 for an action in the wrong state. */
  cannotExecute: (action: string) =>
    new AppError('cannot_execute_action', 400, `Error for action '${action}': Could not execute the action`),
  /** 403 for a non-author updating a comment. */
  commentUpdateDenied: () => new AppError('permission_denied', 403, 'You do not have permission to update this comment.'),
  /** 403 for updating or deleting a log event. */
  eventNotEditable: () => new AppError('permission_denied', 403, 'You cannot update/delete this event.'),
  /** 400 for a reply to a reply. */
  nestedReply: () =>
    new AppError(
      'nested_reply',
      400,
      'Nested children are not allowed. You cannot reply to a comment that is already a reply. Only one level of parent-child relationships is supported.',
    ),
  /** 400 for a `type:id` filter without a colon. */
  invalidReference: () => Errors.badRequest('Not a valid reference.', undefined, 'invalid_reference'),
  /** 400 for an unknown request type at creation. */
  unknownType: (type: string) => Errors.validation([{ field: 'type', messages: [`Unknown request type '${type}'.`] }]),
} as const;
