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
  /** 415: upload body that is not application/octet-stream. */
  unsupportedUploadType: () => Errors.unsupportedMediaType(['application/octet-stream']),
  /** 416: a Range outside the file. */
  rangeNotSatisfiable: (size: number) =>
    new AppError('range_not_satisfiable', 416, 'The requested range is not satisfiable.', {
      headers: { 'Content-Range': `bytes */${size}` },
    }),
} as const;
