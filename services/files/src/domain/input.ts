/**
 * Validation of request bodies (init and metadata update), with marshmallow's messages and
 * field paths as InvenioRDM reports them (`0.key`, `_schema`, …). Pure functions: they either
 * return typed input or throw a 400 `AppError`.
 */
import { Errors, type FieldError } from '@rdm/platform';
import { keyProblem } from './keys.js';

/**
 * Transfer types this service offers: `L` (content uploaded through the API) and `M` (multipart).
 * InvenioRDM's fetch (`F`: the server pulls the content from a URL) and remote (`R`: the content
 * stays at a URL) are refused at validation with a field error (issue 19, item 5; why: the files
 * README, "Transfer types").
 */
export const TRANSFER_TYPES = ['L', 'M'] as const;

/** InvenioRDM's transfer types this service does not offer, with the message of their field error. */
export const UNSUPPORTED_TRANSFER_TYPES: Readonly<Record<string, string>> = {
  F: 'Fetch transfers (F) are not supported: upload the content (L) or upload it in parts (M).',
  R: 'Remote transfers (R) are not supported: upload the content (L) or upload it in parts (M).',
};

/** One validated entry of an init request. */
export interface InitItem {
  key: string;
  metadata: Record<string, unknown> | null;
  access: { hidden: boolean };
  transfer: { type: string; parts?: number; part_size?: number };
  /** Announced size (required by multipart transfers). */
  size?: number;
}

/** Most parts a multipart transfer may have (S3's limit). */
export const MAX_PARTS = 10_000;

/** A validated metadata update. */
export interface UpdateInput {
  metadata?: Record<string, unknown> | null;
  access?: { hidden: boolean };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const INIT_FIELDS = new Set(['key', 'metadata', 'access', 'transfer', 'checksum', 'size', 'storage_class']);

class Collector {
  readonly byField = new Map<string, string[]>();
  add(field: string, message: string): void {
    this.byField.set(field, [...(this.byField.get(field) ?? []), message]);
  }
  throwIfAny(): void {
    if (this.byField.size === 0) return;
    const errors: FieldError[] = [...this.byField].map(([field, messages]) => ({ field, messages }));
    throw Errors.validation(errors);
  }
}

function checkAccess(value: unknown, prefix: string, c: Collector): { hidden: boolean } | undefined {
  if (!isPlainObject(value)) {
    c.add(prefix, 'Invalid input type.');
    return undefined;
  }
  for (const k of Object.keys(value)) if (k !== 'hidden') c.add(`${prefix}.${k}`, 'Unknown field.');
  if ('hidden' in value && typeof value.hidden !== 'boolean') {
    c.add(`${prefix}.hidden`, 'Not a valid boolean.');
    return undefined;
  }
  return { hidden: value.hidden === true };
}

function checkMetadata(value: unknown, field: string, c: Collector): Record<string, unknown> | null | undefined {
  if (value === null) return null;
  if (!isPlainObject(value)) {
    c.add(field, 'Not a valid mapping type.');
    return undefined;
  }
  return value;
}

/** Validate the body of `POST …/draft/files` (a JSON array of `{key, metadata?, access?, transfer?}`). */
export function parseInitBody(body: unknown): InitItem[] {
  const data = body ?? [];
  if (!Array.isArray(data)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  // Why: marshmallow's pre_load rejects the whole batch before per-field validation.
  for (const item of data) {
    if (isPlainObject(item) && 'transfer' in item && !isPlainObject(item.transfer)) {
      throw Errors.validation([{ field: 'transfer', messages: ['Transfer metadata must be a dictionary.'] }]);
    }
  }
  const c = new Collector();
  const items: InitItem[] = [];
  data.forEach((item, i) => {
    if (!isPlainObject(item)) {
      c.add(`${i}._schema`, 'Invalid input type.');
      return;
    }
    for (const f of Object.keys(item)) if (!INIT_FIELDS.has(f)) c.add(`${i}.${f}`, 'Unknown field.');
    let key: string | undefined;
    if (!('key' in item) || item.key === undefined) c.add(`${i}.key`, 'Missing data for required field.');
    else if (item.key === null) c.add(`${i}.key`, 'Field may not be null.');
    else {
      const problem = keyProblem(item.key);
      if (problem) c.add(`${i}.key`, problem);
      else key = item.key as string;
    }
    const metadata = 'metadata' in item ? checkMetadata(item.metadata, `${i}.metadata`, c) : null;
    const access = 'access' in item ? checkAccess(item.access, `${i}.access`, c) : { hidden: false };
    const transfer: InitItem['transfer'] = { type: 'L' };
    if ('transfer' in item) {
      const t = item.transfer as Record<string, unknown>;
      if ('type' in t) {
        if (typeof t.type !== 'string') c.add(`${i}.transfer.type`, 'Not a valid string.');
        else if (Object.hasOwn(UNSUPPORTED_TRANSFER_TYPES, t.type))
          c.add(`${i}.transfer.type`, UNSUPPORTED_TRANSFER_TYPES[t.type] as string);
        else if (!(TRANSFER_TYPES as readonly string[]).includes(t.type)) c.add(`${i}.transfer.type`, `Unsupported value: ${t.type}`);
        else transfer.type = t.type;
      }
      // Why: each transfer type has its own schema (records-resources MultipartTransfer.Schema adds parts, part_size).
      const allowed = transfer.type === 'M' ? ['type', 'parts', 'part_size'] : ['type'];
      for (const k of Object.keys(t)) if (!allowed.includes(k)) c.add(`${i}.transfer.${k}`, 'Unknown field.');
      if (transfer.type === 'M') {
        for (const f of ['parts', 'part_size'] as const) {
          if (!(f in t) || t[f] === undefined || t[f] === null) continue;
          if (!Number.isSafeInteger(t[f])) c.add(`${i}.transfer.${f}`, 'Not a valid integer.');
          else if ((t[f] as number) < 1 || (f === 'parts' && (t[f] as number) > MAX_PARTS))
            c.add(
              `${i}.transfer.${f}`,
              f === 'parts'
                ? `Must be greater than or equal to 1 and less than or equal to ${MAX_PARTS}.`
                : 'Must be greater than or equal to 1.',
            );
          else transfer[f] = t[f] as number;
        }
      }
    }
    if ('checksum' in item && typeof item.checksum !== 'string') c.add(`${i}.checksum`, 'Not a valid string.');
    if ('size' in item && item.size !== null && (!Number.isSafeInteger(item.size) || (item.size as number) < 0))
      c.add(`${i}.size`, 'Not a valid integer.');
    if ('storage_class' in item && typeof item.storage_class !== 'string') c.add(`${i}.storage_class`, 'Not a valid string.');
    if (key !== undefined && metadata !== undefined && access !== undefined) {
      const size = typeof item.size === 'number' && Number.isSafeInteger(item.size) ? item.size : undefined;
      items.push({ key, metadata, access, transfer, ...(size !== undefined ? { size } : {}) });
    }
  });
  c.throwIfAny();
  if (items.length === 0) throw Errors.validation([{ field: '_schema', messages: ['No files to upload.'] }]);
  return items;
}

/** Validate the body of `PUT …/draft/files/<key>` (`{metadata?, access?}`). */
export function parseUpdateBody(body: unknown): UpdateInput {
  const data = body ?? {};
  if (!isPlainObject(data)) throw Errors.validation([{ field: '_schema', messages: ['Invalid input type.'] }]);
  const c = new Collector();
  const out: UpdateInput = {};
  for (const f of Object.keys(data)) if (f !== 'metadata' && f !== 'access') c.add(f, 'Unknown field.');
  if ('metadata' in data) {
    const m = checkMetadata(data.metadata, 'metadata', c);
    if (m !== undefined) out.metadata = m;
  }
  if ('access' in data) {
    const a = checkAccess(data.access, 'access', c);
    if (a) out.access = a;
  }
  c.throwIfAny();
  return out;
}
