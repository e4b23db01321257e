/**
 * The ports of the migration runner: where it reads (`SourcePort`: InvenioRDM's REST API,
 * source/invenio.client.ts), where it writes (`TargetPort`: this project's files import route
 * and records' import RPC, target/), and where it keeps its place (`CheckpointPort`:
 * repo/checkpoints.repo.ts). Types only.
 */
import type { Readable } from 'node:stream';
import type { RecordsImportRecordReply, RecordsImportRecordRequest } from '@rdm/contracts';

/** A published record version as InvenioRDM's REST API answers it (the fields the migration reads). */
export interface SourceRecord {
  id: string;
  created: string;
  updated: string;
  pids?: Record<string, { identifier: string; provider?: string; client?: string }>;
  parent: {
    id: string;
    access?: { owned_by?: { user?: string | number } | null; settings?: Record<string, unknown> };
    communities?: { ids?: string[]; default?: string };
    pids?: Record<string, { identifier: string; provider?: string }>;
  };
  versions: { index: number; is_latest?: boolean };
  access: { record: string; files: string; embargo?: { active?: boolean; until?: string | null; reason?: string | null } };
  files?: { enabled?: boolean; default_preview?: string | null };
  metadata: Record<string, unknown>;
  custom_fields?: Record<string, unknown>;
  [k: string]: unknown;
}

/** A file entry of a source version. */
export interface SourceFile {
  key: string;
  /** `md5:<hex>` */
  checksum: string;
  size: number;
  /** Absolute URL of the bytes. */
  content: string;
}

/** The source instance. */
export interface SourcePort {
  readonly url: string;
  check(): Promise<{ total: number }>;
  latestRecords(since?: string): AsyncIterable<SourceRecord>;
  versions(recordId: string): Promise<SourceRecord[]>;
  files(recordId: string): Promise<SourceFile[]>;
  content(file: SourceFile): Promise<Readable>;
}

/** This project's import operations. */
export interface TargetPort {
  /** Stream one file into bucket `bucketId`, verified against `checksum`; `stored` false when it was there already. */
  putFile(bucketId: string, file: SourceFile, body: Readable): Promise<{ stored: boolean }>;
  importRecord(req: RecordsImportRecordRequest): Promise<RecordsImportRecordReply>;
}

/** A checkpoint of one source entity. */
export interface Checkpoint {
  status: 'copied' | 'failed' | 'skipped';
  sourceUpdated: string | null;
  versions: string[];
  reason: string | null;
}

/** Where the runner keeps its place. */
export interface CheckpointPort {
  get(entity: string, sourceId: string): Promise<Checkpoint | undefined>;
  put(entity: string, sourceId: string, c: Checkpoint): Promise<void>;
}
