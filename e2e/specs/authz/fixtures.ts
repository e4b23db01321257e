/**
 * Fixtures of the authorisation matrix (matrix.test.ts), built through the gateway only: the six
 * actors and the eight fixtures, each restricted part carrying a unique marker string so that a
 * response can be searched for anything its caller may not read.
 */
import { randomBytes } from 'node:crypto';
import { api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { addMember, makeCommunity } from '../communities/support.js';
import { createDraft, publish, uploadFiles, walkthroughMetadata } from '../records/support.js';

/** Who calls. */
export const ACTORS = ['anonymous', 'owner', 'other', 'admin', 'curator', 'communityOwner'] as const;
/** One of ACTORS. */
export type Actor = (typeof ACTORS)[number];

/** Ids of the fixtures and the markers of their restricted parts. */
export interface Fixtures {
  tokens: Record<Actor, string | undefined>;
  /** Owner's draft with a file, submitted for review to `community` (in review). */
  draft: string;
  /** Public record with public files. */
  publicRecord: string;
  publicKey: string;
  /** Restricted record (restricted files too), published into `community` through review. */
  restrictedRecord: string;
  restrictedKey: string;
  /** Public record whose files are restricted. */
  restrictedFiles: string;
  hiddenKey: string;
  /** Edit draft of `publicRecord` (its title changed to a marker, unpublished). */
  editDraft: string;
  /** Public community (closed review) where curator and communityOwner are members. */
  community: string;
  /** Restricted community with the same members. */
  restrictedCommunity: string;
  /** The community-submission request of `draft`. */
  request: string;
  /** marker → the actors who may read what carries it. */
  secrets: Record<string, readonly Actor[]>;
}

const marker = (what: string) => `${what}${randomBytes(5).toString('hex')}`;

function must<T extends { status: number; text: string }>(res: T, ok: number[], what: string): T {
  if (!ok.includes(res.status)) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

/** A draft titled `title` with one file `key`, with the given access. */
async function draftWithFile(token: string, title: string, key: string, access: Record<string, string>): Promise<string> {
  const d = must(
    await createDraft(token, { access, files: { enabled: true }, metadata: { ...walkthroughMetadata(), title } }),
    [201],
    'draft',
  );
  await uploadFiles(token, d.body.id, { [key]: `content of ${key}` });
  return d.body.id;
}

/** Attach a community-submission review to `id` and submit it; returns the request id. */
async function submitReview(token: string, id: string, community: string): Promise<string> {
  const put = must(
    await api(`/api/records/${id}/draft/review`, { method: 'PUT', token, body: { type: 'community-submission', receiver: { community } } }),
    [200],
    'review',
  );
  must(await api(`/api/records/${id}/draft/actions/submit-review`, { method: 'POST', token, body: {} }), [202], 'submit-review');
  return put.body.id;
}

/** Make every actor and fixture. */
export async function buildFixtures(): Promise<Fixtures> {
  // One after the other: each is a CLI process, and five at once starve a loaded 2-core machine.
  const owner = await createUser({ email: uniqueEmail('authz-owner'), name: 'Owen Owner' });
  const other = await createUser({ email: uniqueEmail('authz-other'), name: 'Otto Other' });
  const admin = await createUser({ email: uniqueEmail('authz-admin'), admin: true, name: 'Ada Admin' });
  const curator = await createUser({ email: uniqueEmail('authz-curator'), name: 'Cora Curator' });
  const communityOwner = await createUser({ email: uniqueEmail('authz-cowner'), name: 'Cole Communityowner' });
  const m = {
    draft: marker('draftsecret'),
    restricted: marker('restrictedsecret'),
    restrictedKey: `${marker('restrictedfile')}.dat`,
    hiddenKey: `${marker('hiddenfile')}.dat`,
    edit: marker('editsecret'),
    community: marker('communitysecret'),
  };
  const community = await makeCommunity(admin.token, 'Authz community', { review_policy: 'closed' });
  const restrictedCommunity = await makeCommunity(admin.token, `Authz ${m.community}`, {
    visibility: 'restricted',
    review_policy: 'closed',
  });
  for (const c of [community.id, restrictedCommunity.id]) {
    await addMember(admin.token, c, curator, 'curator');
    await addMember(admin.token, c, communityOwner, 'owner');
  }

  const pub = { record: 'public', files: 'public' };
  const publicKey = 'open.txt';
  const publicRecord = await draftWithFile(owner.token, 'Authz public record', publicKey, pub);
  must(await publish(owner.token, publicRecord), [202], 'publish public');
  const restrictedFiles = await draftWithFile(owner.token, 'Authz public record, restricted files', m.hiddenKey, {
    record: 'public',
    files: 'restricted',
  });
  must(await publish(owner.token, restrictedFiles), [202], 'publish restricted files');

  const restrictedRecord = await draftWithFile(owner.token, m.restricted, m.restrictedKey, { record: 'restricted', files: 'restricted' });
  const rreq = await submitReview(owner.token, restrictedRecord, community.id);
  must(await api(`/api/requests/${rreq}/actions/accept`, { method: 'POST', token: curator.token, body: {} }), [200], 'accept');

  const draft = await draftWithFile(owner.token, m.draft, `${marker('draftfile')}.dat`, pub);
  const request = await submitReview(owner.token, draft, community.id);

  must(await api(`/api/records/${publicRecord}/draft`, { method: 'POST', token: owner.token }), [201], 'edit');
  const edited = must(await api(`/api/records/${publicRecord}/draft`, { token: owner.token }), [200], 'read edit');
  must(
    await api(`/api/records/${publicRecord}/draft`, {
      method: 'PUT',
      token: owner.token,
      body: { ...edited.body, metadata: { ...edited.body.metadata, title: m.edit } },
    }),
    [200],
    'update edit',
  );

  const secrets: Record<string, readonly Actor[]> = {
    [m.draft]: ['owner', 'curator', 'communityOwner', 'admin'],
    [m.restricted]: ['owner', 'curator', 'communityOwner', 'admin'],
    [m.restrictedKey]: ['owner', 'curator', 'communityOwner', 'admin'],
    [m.hiddenKey]: ['owner', 'admin'],
    [m.edit]: ['owner', 'admin'],
    [m.community]: ['curator', 'communityOwner', 'admin'],
  };
  return {
    tokens: {
      anonymous: undefined,
      owner: owner.token,
      other: other.token,
      admin: admin.token,
      curator: curator.token,
      communityOwner: communityOwner.token,
    },
    draft,
    publicRecord,
    publicKey,
    restrictedRecord,
    restrictedKey: m.restrictedKey,
    restrictedFiles,
    hiddenKey: m.hiddenKey,
    editDraft: publicRecord,
    community: community.id,
    restrictedCommunity: restrictedCommunity.id,
    request,
    secrets,
  };
}
