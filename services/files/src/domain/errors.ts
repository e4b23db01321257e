/** Errors of the files domain, with InvenioRDM's messages where it has one. */
import { AppError, Errors } from '@rdm/platform';

/** Catalog of files errors. */
export const FilesErrors = {
  /** 404: the record has no file with this key (records-resources FileKeyNotFoundError). */
  fileKeyNotFound: (recordId: string, key: string) => new AppError('file_key_not_found', 404, `Record '${recordId}' has no file '${key}'.`),
  /** 404: the entry exists but its content was never committed. */
  noContent: (key: string) => new AppError('file_not_committed', 404, `File with key ${key} has no committed content.`),
  /** 403: files are disabled on the record (files-rest InvalidOperationError). */
  filesNotEnabled: () => new AppError('files_not_enabled', 403, 'Files are not enabled.'),
  /** 403: the bucket is locked (published record, edit draft). files-rest BucketLockedError. */
  bucketLocked: () => new AppError('bucket_locked', 403, 'Bucket is locked for modifications.'),
  /** 400: a key that already exists (files-rest InvalidKeyError). */
  duplicateKey: (key: string) => new AppError('file_key_exists', 400, `File with key ${key} already exists.`),
  /** 400: the record would hold more files than allowed. */
  tooManyFiles: () =>
    new AppError('files_count_exceeded', 400, 'Uploading selected files will result in exceeding the max amount per record.'),
  /** 400: the file or the record total would exceed its byte limit (files-rest FileSizeError). */
  fileSizeLimit: () => new AppError('file_size_limit', 400, 'File size limit exceeded.'),
  /** 400: an unusable file key. */
  invalidKey: (problem: string, field = 'key') => Errors.validation([{ field, messages: [problem] }], 'Invalid file key.'),
  /** 400: content upload to a committed file (records-resources TransferException text). */
  alreadyCommitted: (key: string) => new AppError('file_already_committed', 400, `File with key "${key}" is already committed.`),
  /** 400: commit before any content was uploaded. */
  notUploaded: (key: string) => new AppError('file_not_uploaded', 400, `File with key ${key} not uploaded yet.`),
  /** 400: the client went away mid-upload (records-resources TransferException text). */
  transferFailed: (key: string) => new AppError('transfer_failed', 400, `Transfer of File with key "${key}" failed.`),
  /** 400: a multipart init without its size or parts (records-resources TransferException texts). */
  multipartRequires: (what: 'parts' | 'file size') => new AppError('transfer_error', 400, `Multipart file transfer requires ${what}.`),
  /** 400: parts × part_size cannot hold the announced size. */
  multipartPlan: (message: string) => new AppError('transfer_error', 400, message),
  /** 400: whole content sent to a multipart entry (records-resources TransferException text). */
  multipartWholeContent: () => new AppError('transfer_error', 400, 'Can not set content for multipart file, use the parts instead.'),
  /** 400: a part sent to an entry of another transfer type (records-resources TransferException text). */
  notMultipart: (type: string) => new AppError('transfer_error', 400, `Transfer type "${type}" does not support multipart uploads.`),
  /** 400: a part number outside 1..parts (records-resources TransferException text for the upper bound). */
  partNumber: (part: number) =>
    new AppError(
      'transfer_error',
      400,
      part < 1 ? 'Part numbers start at 1.' : 'Part number is higher than total parts sent in multipart initialization.',
    ),
  /** 400: a part whose size is not the one the init implies (records-resources TransferException text). */
  partSize: (last: boolean, expected: number) =>
    new AppError(
      'transfer_error',
      400,
      last
        ? `Size of the last part must be ${expected} bytes (the file size minus the other parts).`
        : 'Size of this part must be equal to part_size sent in multipart initialization.',
    ),
  /** 400: commit of a multipart entry whose parts are not all uploaded. */
  missingParts: (key: string, missing: number[]) =>
    new AppError(
      'transfer_error',
      400,
      `File with key ${key} is missing parts: ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', …' : ''}.`,
    ),
  /** 400: the storage upload behind a multipart entry expired (swept after FILES_UPLOAD_STALE_MS). */
  multipartExpired: (key: string) =>
    new AppError('transfer_error', 400, `The multipart upload of file with key ${key} expired; delete the file and initialize it again.`),
  /** 409: a part sent while the file is being assembled. */
  assembling: (key: string) => new AppError('conflict', 409, `File with key ${key} is being committed; its parts can no longer change.`),
  /** 501: records did not answer a media-files grant (it predates media files). */
  mediaUnsupported: () =>
    new AppError('not_implemented', 501, 'Media files are not available: the records service does not grant them yet.'),
  /** 415: upload body that is not application/octet-stream. */
  unsupportedUploadType: () => Errors.unsupportedMediaType(['application/octet-stream']),
  /** 416: a Range outside the file. */
  rangeNotSatisfiable: (size: number) =>
    new AppError('range_not_satisfiable', 416, 'The requested range is not satisfiable.', {
      headers: { 'Content-Range': `bytes */${size}` },
    }),
} as const;
