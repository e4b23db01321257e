/** Errors of the communities domain (InvenioRDM's statuses and messages, reference §2–§3). */
import { AppError, Errors } from '@rdm/platform';

/** Catalog of community errors. */
export const CommunityErrors = {
  /** 404 unknown community id or slug. */
  notFound: () => Errors.pidDoesNotExist(),
  /** 410 soft-deleted community. */
  deleted: () => Errors.gone('The record has been deleted.'),
  /** 400 open requests block deletion. */
  openRequests: (n: number) =>
    Errors.badRequest(
      `There ${n === 1 ? 'is 1 request' : `are ${n} requests`} open for this community. Please, resolve ${n === 1 ? 'it' : 'them'} before deleting this community.`,
      undefined,
      'open_requests',
    ),
  /** 400 deleting twice / restoring a live community. */
  badDeletionState: (message: string) => Errors.badRequest(message, undefined, 'deletion_status'),
  /** 404 no logo. */
  noLogo: () => Errors.notFound('No logo exists for this community.', 'no_logo'),
  /** 400 logo over the limit. */
  logoTooLarge: (limit: number, given: string) =>
    Errors.badRequest(`Logo size limit exceeded. Limit: ${formatMb(limit)} Given: ${given}`, undefined, 'logo_too_large'),
  /** 400 owner invariant. */
  lastOwner: () => Errors.validation([{ field: '_schema', messages: ['A community must have at least one owner.'] }]),
  /** 400 with one `members` message. */
  members: (message: string) => Errors.validation([{ field: 'members', messages: [message] }]),
  /** 400 with a `_schema` message. */
  schema: (message: string) => Errors.validation([{ field: '_schema', messages: [message] }]),
  /** 404 unknown featured entry. */
  featuredNotFound: () => Errors.notFound('Featured entry not found.', 'featured_not_found'),
  /** 404 unknown schema extension. */
  schemaNotFound: () => new AppError('schema_not_found', 404, 'The persistent identifier does not exist.'),
} as const;

/** `1.00 MB` (decimal megabytes with two decimals, as InvenioRDM prints sizes). */
export function formatMb(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(2)} MB`;
}
