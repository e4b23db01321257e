/**
 * The error catalog of records: every message the records domain answers with, as factories,
 * like the platform's `Errors` (which stays the source of the generic ones: 403, 404, 410, 412…).
 *
 * When to use: `fieldErrors.x()` for errors collected and reported at once (save-time `errors`,
 * publish 400s with every field); `RecordErrors.x()` for errors thrown at once. Messages are
 * InvenioRDM's where it has one (tests and clients compare them), so change none lightly.
 */
import { AppError, Errors, type FieldError } from '@rdm/platform';

const fe = (field: string, message: string): FieldError => ({ field, messages: [message] });

/** Messages of files checks. */
export const FILES_MESSAGES = {
  missing: 'Missing uploaded files. To disable files for this record please mark it as metadata-only.',
  pending: 'One or more files have not completed their transfer, please wait.',
  mustBeEnabled: 'Files support must be enabled.',
  removeFirst: 'Please remove all files first.',
  noFiles: 'The record has no files.',
  noOptionsPermission: "You don't have permissions to manage files options.",
  deleteFirst: 'You must first delete all files to set the record to be metadata-only.',
} as const;

/** Messages of the review of a draft (reference). */
export const REVIEW_MESSAGES = {
  notFound: 'Review for draft not found',
  publishOpen: 'You cannot publish a draft with an open review request. Please cancel the review request first.',
  deleteOpen: 'You cannot delete a draft with an open review. Please cancel the review first.',
  deleteOpenReview: 'An open review cannot be deleted.',
  published: 'You cannot create a review for an already published record.',
  newVersion: 'You cannot create a review for a new version of a published record.',
  exists: 'A review already exists for this record',
  membersOnly: 'Submission to this community is only allowed to community members.',
  invalidType: 'Invalid review type.',
  communityNotFound: 'Community not found.',
  changed: 'The review of this draft changed meanwhile; please retry.',
} as const;

/** Messages of per-community inclusion errors. */
export const INCLUSION_MESSAGES = {
  notFound: 'Community not found.',
  already: 'The record is already included in this community.',
  restricted: 'A public record cannot be included in a restricted community.',
  notIncluded: 'The record is not included in this community.',
  denied: 'Permission denied.',
} as const;

/** Messages of the saga's refusals. */
export const SAGA_MESSAGES = {
  restricted: 'A public record cannot be included in a restricted community.',
  draftGone: 'The draft does not exist anymore.',
  alreadyPublished: 'The record is already published.',
  recordGone: 'The record does not exist.',
  communityGone: 'The community does not exist.',
  notTheReview: 'This request is not the review of the draft.',
  creatorMaySubmit: "The request's creator may not submit this draft.",
  creatorMayInclude: "The request's creator may not manage this record.",
  recordDeleted: 'The record has been deleted.',
} as const;

/** Field errors, collected and reported together. */
export const fieldErrors = {
  missingFiles: () => fe('files.enabled', FILES_MESSAGES.missing),
  filesPending: () => fe('files', FILES_MESSAGES.pending),
  noFilesOptionsPermission: () => fe('files.enabled', FILES_MESSAGES.noOptionsPermission),
  deleteFilesFirst: () => fe('files.enabled', FILES_MESSAGES.deleteFirst),
  invalidDefaultPreview: (key: string) => fe('files.default_preview', `Invalid value for default preview: file ${key} does not exist.`),
  noRecordAccessPermission: () => fe('access', "You don't have permissions to manage record access."),
  restrictionGracePassed: () =>
    fe(
      '_schema',
      'Record visibility can not be changed to restricted anymore. Please contact support if you still need to make these changes.',
    ),
  pidTaken: (field: string, scheme: string, identifier: string) => fe(field, `${scheme}:${identifier} already exists.`),
  unknownExtensionSchema: () => fe('metadata.community_extension_schema', 'Unknown community schema extension.'),
  invalidExtension: () => fe('metadata.community_extension', 'Invalid value.'),
  /** Collect `e` into `errors` (messages of one field merged, duplicates dropped). */
  add(errors: FieldError[], e: FieldError): void {
    const existing = errors.find((x) => x.field === e.field);
    if (!existing) errors.push({ field: e.field, messages: [...e.messages] });
    else for (const m of e.messages) if (!existing.messages.includes(m)) existing.messages.push(m);
  },
  /** Several lists merged into one (per field, in order, duplicates dropped). */
  merge(...lists: FieldError[][]): FieldError[] {
    const out: FieldError[] = [];
    for (const list of lists) for (const e of list) fieldErrors.add(out, e);
    return out;
  },
};

/** Errors of records thrown at once (400 unless said otherwise). */
export const RecordErrors = {
  filesMustBeEnabled: () => Errors.validation([fe('files.enabled', FILES_MESSAGES.mustBeEnabled)]),
  removeFilesFirst: () => Errors.validation([fe('files.enabled', FILES_MESSAGES.removeFirst)]),
  recordHasNoFiles: () => Errors.validation([fe('files.enabled', FILES_MESSAGES.noFiles)]),
  invalidPidScheme: () => Errors.validation([fe('pids', 'Invalid persistent identifier scheme.')]),
  pidExistsForType: (scheme: string) => Errors.validation([fe(`pids.${scheme}`, `A PID already exists for type ${scheme}`)]),
  pidTaken: (scheme: string, identifier: string) => Errors.validation([fieldErrors.pidTaken(`pids.${scheme}`, scheme, identifier)]),
  cannotDiscardPid: (scheme: string) =>
    Errors.validation([fe(`pids.${scheme}`, 'Cannot discard a reserved or registered persistent identifier.')]),
  invalidVocabularyValue: (id: string) => new AppError('invalid_vocabulary_value', 400, `Invalid value ${id}.`),
  unsuitableVocabularyValue: () => new AppError('invalid_vocabulary_value', 400, 'Not a valid value.'),
  noIdentifier: () => Errors.internal('Could not allocate an identifier.'),
  reviewNotFound: () => Errors.notFound(REVIEW_MESSAGES.notFound, 'review_not_found'),
  reviewChanged: () => Errors.conflict(REVIEW_MESSAGES.changed),
  communityNotFound: (field = 'receiver.community') => Errors.validation([fe(field, REVIEW_MESSAGES.communityNotFound)]),
};
