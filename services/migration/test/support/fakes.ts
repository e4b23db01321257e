/**
 * Test doubles of the migration runner's ports (unit tests only): a source InvenioRDM serving
 * records from memory, a target that checks the streamed bytes' md5 as the files service does and
 * imports as records' RPC answers (new, existing, refused), and checkpoints in a Map.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { RecordsImportRecordReply, RecordsImportRecordRequest } from '@rdm/contracts';
import { AppError } from '@rdm/platform';
import type { Checkpoint, CheckpointPort, SourceFile, SourcePort, SourceRecord, TargetPort } from '../../src/domain/ports.js';
import { ChecksumMismatch } from '../../src/target/target.js';

/** `md5:<hex>` of a buffer. */
export const md5 = (b: Buffer) => `md5:${createHash('md5').update(b).digest('hex')}`;

/** A source record version. */
export function version(parent: string, id: string, index: number, o: Partial<SourceRecord> = {}): SourceRecord {
  return {
    id,
    created: `202${index}-01-01T00:00:00.000000+00:00`,
    updated: `202${index}-01-02T00:00:00.000000+00:00`,
    parent: { id: parent, access: { owned_by: { user: 3 } } },
    versions: { index, is_latest: false },
    access: { record: 'public', files: 'public', embargo: { active: false, until: null, reason: null } },
    files: { enabled: true },
    metadata: { title: `${id} – Ünïcode`, resource_type: { id: 'dataset', title: { en: 'Dataset' } }, publication_date: '2020-01-01' },
    ...o,
  };
}

/** An in-memory InvenioRDM. */
export class FakeSource implements SourcePort {
  readonly url = 'https://old.example.org';
  parents = new Map<string, SourceRecord[]>();
  content_ = new Map<string, Buffer>();
  /** Bytes served in place of a file's real ones (a corrupted transfer). */
  corrupt = new Set<string>();
  calls: string[] = [];

  add(versions: SourceRecord[], files: Record<string, Record<string, string>> = {}): void {
    const latest = Math.max(...versions.map((v) => v.versions.index));
    for (const v of versions) v.versions.is_latest = v.versions.index === latest;
    this.parents.set(versions[0]!.parent.id, versions);
    for (const [id, fs] of Object.entries(files)) for (const [k, c] of Object.entries(fs)) this.content_.set(`${id}/${k}`, Buffer.from(c));
  }
  async check() {
    return { total: [...this.parents.values()].reduce((n, v) => n + v.length, 0) };
  }
  async *latestRecords(since?: string) {
    this.calls.push(`list ${since ?? ''}`);
    for (const vs of this.parents.values()) {
      const latest = vs.find((v) => v.versions.is_latest)!;
      if (!since || latest.updated >= since) yield latest;
    }
  }
  async versions(recordId: string) {
    for (const vs of this.parents.values()) if (vs.some((v) => v.id === recordId)) return [...vs].reverse();
    return [];
  }
  async files(recordId: string): Promise<SourceFile[]> {
    return [...this.content_.entries()]
      .filter(([k]) => k.startsWith(`${recordId}/`))
      .map(([k, b]) => ({ key: k.slice(recordId.length + 1), checksum: md5(b), size: b.length, content: k }));
  }
  async content(f: SourceFile): Promise<Readable> {
    this.calls.push(`content ${f.content}`);
    const b = this.content_.get(f.content)!;
    return Readable.from(this.corrupt.has(f.content) ? [Buffer.from('corrupted')] : [b.subarray(0, 3), b.subarray(3)]);
  }
}

/** A target checking md5 like the files service and importing like records' RPC. */
export class FakeTarget implements TargetPort {
  files = new Map<string, string>();
  records = new Map<string, RecordsImportRecordRequest['versions'][number]>();
  requests: RecordsImportRecordRequest[] = [];
  /** Parent ids whose import is refused with a 400 (a record our schema rejects). */
  reject = new Set<string>();

  async putFile(bucketId: string, file: SourceFile, body: Readable) {
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(c as Buffer);
    const got = md5(Buffer.concat(chunks));
    if (got !== file.checksum)
      throw new ChecksumMismatch(`Checksum mismatch for ${file.key}: received ${got}, announced ${file.checksum}.`);
    const k = `${bucketId}/${file.key}`;
    const stored = this.files.get(k) !== got;
    this.files.set(k, got);
    return { stored };
  }
  async importRecord(req: RecordsImportRecordRequest): Promise<RecordsImportRecordReply> {
    this.requests.push(req);
    if (this.reject.has(req.parent.id)) {
      throw new AppError('validation_error', 400, 'A validation error occurred.', {
        fieldErrors: [{ field: 'versions.0.metadata.publication_date', messages: ['Invalid date.'] }],
      });
    }
    const existing = req.versions.filter((v) => this.records.has(v.id)).map((v) => v.id);
    const fresh = req.versions.filter((v) => !this.records.has(v.id));
    if (req.dry_run) return { parent_id: req.parent.id, status: 'valid', created: fresh.map((v) => v.id), existing };
    for (const v of fresh) {
      for (const f of v.files)
        if (this.files.get(`${v.id}/${f.key}`) !== f.checksum) throw new AppError('validation_error', 400, `${f.key}: not imported`);
      this.records.set(v.id, v);
    }
    return {
      parent_id: req.parent.id,
      status: fresh.length ? (existing.length ? 'updated' : 'created') : 'unchanged',
      created: fresh.map((v) => v.id),
      existing,
    };
  }
}

/** Checkpoints in a Map. */
export class MapCheckpoints implements CheckpointPort {
  rows = new Map<string, Checkpoint>();
  async get(entity: string, id: string) {
    return this.rows.get(`${entity}:${id}`);
  }
  async put(entity: string, id: string, c: Checkpoint) {
    this.rows.set(`${entity}:${id}`, c);
  }
}
