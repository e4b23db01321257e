/**
 * The metadata component: the write form of a draft (`metadata`, `custom_fields`) with its
 * vocabulary references resolved in ONE batched call to the vocabularies service and replaced by
 * their dereferenced form (unknown ids: 400, nothing saved), and the strict schema validation of
 * a publication (validation.ts, every error at once).
 *
 * When to use: `create`/`update` on the write form the service loaded (validation.ts), after
 * the access checks; `checkPublish` at publish.
 */
import type { DraftWrite, PublishCheck, RecordComponent } from './component.js';
import type { CustomFields } from './custom-fields.js';
import { fieldErrors } from './errors.js';
import type { VocabulariesPort } from './ports.js';
import { validateStored } from './validation.js';
import { resolveAndDereference } from './vocabulary-refs.js';

/** Metadata, custom fields and their vocabulary references. */
export class MetadataComponent implements RecordComponent {
  readonly name = 'metadata';

  constructor(
    private readonly vocabularies: VocabulariesPort,
    private readonly customFields?: CustomFields,
  ) {}

  /** Create: resolved metadata, custom fields and the resource type columns. */
  create(w: DraftWrite): Promise<void> {
    return this.write(w);
  }

  /** Update: a full replace of metadata and custom fields. */
  update(w: DraftWrite): Promise<void> {
    return this.write(w);
  }

  private async write(w: DraftWrite): Promise<void> {
    const data = w.input.data as Record<string, any>;
    const rt = await resolveAndDereference(data, w.input.vocabRefs, this.vocabularies);
    w.patch.metadata = (data.metadata ?? {}) as Record<string, any>;
    w.patch.custom_fields = (data.custom_fields ?? {}) as Record<string, any>;
    w.patch.resource_type_type = rt.type;
    w.patch.resource_type_subtype = rt.subtype;
    for (const e of w.input.errors) fieldErrors.add(w.errors, e);
  }

  /** Publish: every schema error of the stored draft. */
  checkPublish(c: PublishCheck): void {
    c.errors.metadata.push(...validateStored(c.draft, this.customFields));
  }
}
