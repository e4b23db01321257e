/** Shared helpers of the records e2e specs (black box: gateway only). */
import { api } from '../../support/client.js';

/** Full metadata of the spec's creation walkthrough, with ids from the shipped vocabularies. */
export function walkthroughMetadata(): Record<string, unknown> {
  return {
    resource_types: [{ id: 'image-photo' }],
    title: 'A Romans story',
    publication_date: '2020-06-01',
    creators: [
      {
        person_or_org: {
          type: 'personal',
          given_name: 'Troy',
          family_name: 'Brown',
          identifiers: [{ scheme: 'orcid', identifier: '0000-0002-1825-0097' }],
        },
        role: { id: 'researcher' },
        affiliations: [{ id: '01ggx4157' }, { name: 'Free Text University' }],
      },
      { person_or_org: { type: 'organizational', name: 'Mars Institute' } },
    ],
    contributors: [{ person_or_org: { type: 'personal', family_name: 'Collins', given_name: 'Thomas' }, role: { id: 'editor' } }],
    additional_titles: [{ title: 'Another title', type: { id: 'alternative-title' }, lang: { id: 'eng' } }],
    description: '<p>A <b>description</b> of the record</p>',
    additional_descriptions: [{ description: 'Some methods', type: { id: 'methods' }, lang: { id: 'eng' } }],
    rights: [
      { id: 'cc-by-4.0' },
      { title: { en: 'A custom license' }, description: { en: 'A description' }, link: 'https://customlicense.org/licenses/by/4.0/' },
    ],
    copyright: '(c) 2020 Mars Institute',
    subjects: [{ subject: 'Astronomy' }],
    languages: [{ id: 'dan' }, { id: 'eng' }],
    dates: [{ date: '1939/1945', type: { id: 'other' }, description: 'A date' }],
    version: 'v1.0',
    publisher: 'InvenioRDM',
    identifiers: [
      { identifier: '10.9999/rdm.9999999', scheme: 'doi' },
      { identifier: 'https://example.org/record', scheme: 'url' },
    ],
    related_identifiers: [
      { identifier: '10.9999/rdm.9999988', scheme: 'doi', relation_type: { id: 'iscitedby' }, resource_type: { id: 'dataset' } },
    ],
    locations: {
      features: [
        {
          geometry: { type: 'Point', coordinates: [-32.94682, -60.63932] },
          place: 'test location place',
          description: 'test location description',
        },
      ],
    },
    funding: [{ funder: { id: '00k4n6c32' }, award: { title: { en: 'Personalised Treatment' }, number: '755021' } }],
    references: [{ reference: 'Nielsen et al,..', identifier: '0000 0001 2156 142X', scheme: 'isni' }],
  };
}

/** Create a draft; returns the response. */
export function createDraft(
  token: string | undefined,
  body: unknown = { access: { record: 'public', files: 'public' }, files: { enabled: true }, metadata: walkthroughMetadata() },
) {
  return api('/api/records', { method: 'POST', token, body });
}

/** Register, upload and commit files on a draft through the files service. */
export async function uploadFiles(token: string, id: string, files: Record<string, string>): Promise<void> {
  const init = await api(`/api/records/${id}/draft/files`, { method: 'POST', token, body: Object.keys(files).map((key) => ({ key })) });
  if (init.status !== 201) throw new Error(`files init ${init.status}: ${init.text}`);
  for (const [key, content] of Object.entries(files)) {
    const up = await api(`/api/records/${id}/draft/files/${encodeURIComponent(key)}/content`, { method: 'PUT', token, raw: content });
    if (up.status !== 200) throw new Error(`upload ${key} ${up.status}: ${up.text}`);
    const commit = await api(`/api/records/${id}/draft/files/${encodeURIComponent(key)}/commit`, { method: 'POST', token });
    if (commit.status !== 200) throw new Error(`commit ${key} ${commit.status}: ${commit.text}`);
  }
}

/** Publish a draft; returns the response. */
export function publish(token: string | undefined, id: string) {
  return api(`/api/records/${id}/draft/actions/publish`, { method: 'POST', token });
}

/** Create a draft with one committed file and publish it; returns the published record. */
export async function publishedRecord(
  token: string,
  metadata = walkthroughMetadata(),
  access = { record: 'public', files: 'public' },
): Promise<any> {
  const draft = await createDraft(token, { access, files: { enabled: true }, metadata });
  if (draft.status !== 201) throw new Error(`create ${draft.status}: ${draft.text}`);
  await uploadFiles(token, draft.body.id, { 'data.txt': 'hello' });
  const pub = await publish(token, draft.body.id);
  if (pub.status !== 202) throw new Error(`publish ${pub.status}: ${pub.text}`);
  return pub.body;
}
