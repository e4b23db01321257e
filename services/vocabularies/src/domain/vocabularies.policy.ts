/**
 * Who may do what with vocabularies (invenio-vocabularies `PermissionPolicy` and the names
 * policy): anyone searches and reads; entries tagged `unlisted` only the system reads; the
 * `names` vocabulary needs an authenticated caller; writes are for the system (administrators
 * and the system identity always pass `definePolicy`).
 */
import { anyUser, authenticatedUser, definePolicy, systemProcess } from '@rdm/platform';

/** Actions on vocabularies. */
export type VocabularyAction =
  | 'list_vocabularies'
  | 'search'
  | 'read'
  | 'read_unlisted'
  | 'search_names'
  | 'read_names'
  | 'create'
  | 'update'
  | 'delete'
  | 'manage';

/** The vocabularies policy. */
export const vocabulariesPolicy = definePolicy<VocabularyAction>({
  list_vocabularies: [anyUser],
  search: [anyUser],
  read: [anyUser],
  read_unlisted: [systemProcess],
  search_names: [authenticatedUser],
  read_names: [authenticatedUser],
  create: [systemProcess],
  update: [systemProcess],
  delete: [systemProcess],
  manage: [systemProcess],
});
