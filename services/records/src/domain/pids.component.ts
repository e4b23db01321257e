/**
 * Persistent identifiers of drafts and records (reference §3.5): DOIs from the managed DataCite
 * provider (`<DOI_PREFIX>/<id>`, reserved on request, registered at publish of a public record)
 * or external DOIs supplied by the client, and OAI identifiers minted at publish for public
 * records. `validatePids` gives the save-time field errors (also publish-time 400s).
 */
import type { FieldError, Knex } from '@rdm/platform';
import { isDoi, normalizeDoi } from './identifiers.js';
import type { PidValue } from './model.js';
import { findPid } from '../repo/records.repo.js';

/** Providers per scheme. */
export const PROVIDERS: Record<string, string[]> = { doi: ['datacite', 'external'], oai: ['oai'] };

/** PID configuration. */
export interface PidsConfig {
  doiPrefix: string;
  siteName: string;
}

/** The managed DOI of an id. */
export function managedDoi(prefix: string, id: string): string {
  return `${prefix}/${id}`;
}

/** The OAI identifier of an id. */
export function oaiIdentifier(prefix: string, id: string): string {
  return `oai:${prefix}:${id}`;
}

function add(errors: FieldError[], field: string, message: string): void {
  const e = errors.find((x) => x.field === field);
  if (e) {
    if (!e.messages.includes(message)) e.messages.push(message);
  } else errors.push({ field, messages: [message] });
}

/**
 * Validate (and normalise in place) `pids` of the draft `recordId`. Returns field errors:
 * invalid DOI, duplicates, external DOIs under the managed prefix, missing publisher for
 * DataCite registration.
 */
export async function validatePids(
  db: Knex | Knex.Transaction,
  pids: Record<string, PidValue>,
  ctx: { recordId: string; metadata: Record<string, any> },
  cfg: PidsConfig,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const [scheme, pid] of Object.entries(pids ?? {})) {
    if (!pid || typeof pid !== 'object') continue;
    const field = `pids.${scheme}`;
    const providers = PROVIDERS[scheme] ?? [];
    if (typeof pid.provider === 'string' && !providers.includes(pid.provider)) {
      add(errors, field, `Invalid provider ${pid.provider}.`);
      continue;
    }
    if (scheme !== 'doi') continue;
    const identifier = typeof pid.identifier === 'string' ? pid.identifier : '';
    if (identifier) {
      if (!isDoi(identifier)) {
        add(errors, field, 'Invalid DOI');
        continue;
      }
      pid.identifier = normalizeDoi(identifier);
    }
    const doi = pid.identifier;
    if (doi) {
      const existing = await findPid(db, 'doi', doi);
      if (existing && existing.record_id !== ctx.recordId) add(errors, field, `doi:${doi} already exists.`);
    }
    if (pid.provider === 'external') {
      if (!doi) add(errors, field, 'Missing DOI for required field.');
      else if (doi.startsWith(`${cfg.doiPrefix}/`)) {
        add(
          errors,
          field,
          `The prefix '${cfg.doiPrefix}' is managed by ${cfg.siteName}. Please supply an external DOI or select 'No' to have a DOI generated for you.`,
        );
      }
    } else if (pid.provider === 'datacite') {
      if (doi && !doi.startsWith(`${cfg.doiPrefix}/`)) {
        add(errors, field, `Wrong DOI ${doi} prefix provided, it should be ${cfg.doiPrefix} as defined in the rest client`);
      }
      const publisher = ctx.metadata?.publisher;
      if (typeof publisher !== 'string' || publisher === '') {
        add(errors, 'metadata.publisher', 'Missing publisher field required for DOI registration.');
      }
    }
  }
  return errors;
}
