/**
 * The world of the authorisation matrix (matrix.test.ts, table.ts), built once through the gateway:
 * the actors, one record per record state, the communities and the requests the table's rows act
 * on, and the markers (unique strings in titles, file keys, e-mail addresses, comments, slugs) of
 * everything restricted, each with the actors who may read it. Every answer of the matrix is
 * searched for the markers its caller may not read.
 *
 * Record states (all owned by `owner`; every published one is in the public community `C`,
 * through a review `curator` accepted, so C's roles act on it):
 * - `draft`: a first-version draft, not in review;
 * - `review`: a draft submitted for review to C (in review);
 * - `public`: published public record with public files, with a pending edit draft whose title
 *   is a marker (the "pending edits" of finding 2);
 * - `restricted`: published restricted record (files restricted too);
 * - `embargoed`: published public record whose files are under an active embargo;
 * - `restrictedFiles`: published public record with restricted files;
 * - `deleted`: published public record an administrator deleted (tombstone visible), retitled
 *   with a marker before (its review request keeps the earlier title).
 * Each has one file (its key a marker wherever the file is not public), one media file, a view
 * grant to `extra` and three secret links (view, preview, edit): the link actors are anonymous
 * callers presenting the link of the record they act on (`?token=`).
 *
 * Communities: `public` = C (public, closed review, open membership), `restricted` = R
 * (restricted; its title and slug are markers), both with reader, curator, manager and cowner
 * (an owner of the community) as members, plus `extra` (a reader, who also has a record in C)
 * and `invitee` (invited, never accepted; a restricted profile); both have a logo and a schema
 * extension, C a featured entry. `deleted` = D, deleted, whose only member besides its creator
 * is cowner. The administrator created all three (so is also their owner: it is a superuser anyway).
 *
 * Requests (community submissions to C, created by owner): `created` (a draft with its review
 * attached, not submitted), `submitted` (the review of the `review` record), `accepted` (the
 * review that published the `public` record); each carries one comment of owner.
 *
 * Users are made with the users CLI, one process each (4–8 s on a loaded machine): keep their
 * number down. The rest is HTTP, a few chains at a time (each invitation and review is an RPC with
 * a 5 s timeout).
 */
import { randomBytes } from 'node:crypto';
import { type ApiResponse, api } from '../../support/client.js';
import { createUser, type TestUser, uniqueEmail } from '../../support/users.js';
import { addMember, communityBody, uniqueSlug } from '../communities/support.js';
import { walkthroughMetadata } from '../records/support.js';

/** Who calls. The three link actors are anonymous with a secret link of that level to the record. */
export const ACTORS = [
  'anon',
  'owner',
  'other',
  'reader',
  'curator',
  'manager',
  'cowner',
  'admin',
  'link:view',
  'link:preview',
  'link:edit',
] as const;
/** One of ACTORS. */
export type Actor = (typeof ACTORS)[number];
/** The signed-in actors (everyone but anonymous and the link actors). */
export type UserActor = Exclude<Actor, 'anon' | 'link:view' | 'link:preview' | 'link:edit'>;
/** Actors of rows that are not about one record: secret links give nothing there. */
export const PLAIN_ACTORS = ACTORS.slice(0, 8) as readonly Actor[];
/** Secret-link levels. */
export type LinkLevel = 'view' | 'preview' | 'edit';

/** The record states of the matrix. */
export const RECORD_STATES = ['draft', 'review', 'public', 'restricted', 'embargoed', 'restrictedFiles', 'deleted'] as const;
/** One of RECORD_STATES. */
export type RecordState = (typeof RECORD_STATES)[number];
/** The community states. */
export const COMMUNITY_STATES = ['public', 'restricted', 'deleted'] as const;
/** One of COMMUNITY_STATES. */
export type CommunityState = (typeof COMMUNITY_STATES)[number];
/** The request states. */
export const REQUEST_STATES = ['created', 'submitted', 'accepted'] as const;
/** One of REQUEST_STATES. */
export type RequestState = (typeof REQUEST_STATES)[number];

/** One record of a state. */
export interface RecordFx {
  id: string;
  parent: string;
  /** Its file and media file keys. */
  key: string;
  media: string;
  /** A PNG among its files (the IIIF rows). */
  image: string;
  /** The secret links (id and token) of each level. */
  links: Record<LinkLevel, { id: string; token: string }>;
  /** Write form of its draft (what a PUT …/draft sends to change nothing). */
  write: Record<string, any>;
  /** The write form as published (the `public` record's edit draft has a marker title instead). */
  published?: Record<string, any>;
}

/** One community of a state. */
export interface CommunityFx {
  id: string;
  slug: string;
  body: Record<string, unknown>;
  /** Its featured entry (C only) and schema extension (C and R). */
  featured?: string;
  schema?: string;
}

/** One request of a state. */
export interface RequestFx {
  id: string;
  /** Owner's comment and its content. */
  comment: string;
  commentText: string;
  /** Its title as stored (a PUT sending it changes nothing). */
  title: string;
  /** Its topic and receiver (the re-aiming rows check they never change). */
  topic: unknown;
  receiver: unknown;
}

/** A string that may appear only in answers to these actors (`link:<level>@<state>` for link actors). */
export interface Marker {
  text: string;
  what: string;
  readers: ReadonlySet<string>;
}

/** Everything the rows act on. */
export interface World {
  users: Record<UserActor, TestUser>;
  /** A reader of C and R who also holds a view grant on every record (the grant rows' subject). */
  extra: TestUser;
  /** Invited to C and R, never accepted; a restricted profile. */
  invitee: TestUser;
  records: Record<RecordState, RecordFx>;
  communities: Record<CommunityState, CommunityFx>;
  requests: Record<RequestState, RequestFx>;
  /** A draft of `other` (target of the re-aiming row). */
  otherDraft: string;
  /** A record of `extra` in C (target of the removal of records from communities). */
  extraRecord: string;
  markers: Marker[];
}

const marker = (what: string) => `${what}${randomBytes(5).toString('hex')}`;

/** Throw unless the answer has one of the statuses. */
export function must(res: ApiResponse, ok: number[], what: string): ApiResponse {
  if (!ok.includes(res.status)) throw new Error(`authz fixture: ${what}: ${res.status} ${res.text.slice(0, 500)}`);
  return res;
}

/** Poll `probe` until it returns true (the review saga publishes asynchronously). */
export async function until(probe: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`authz fixture: ${what} did not happen within ${ms} ms`);
}

/** A future date `days` ahead (YYYY-MM-DD). */
export const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** Create a draft of `token` with this access and title; media files on (a bucket per draft). */
export async function createRecordDraft(
  token: string,
  title: string,
  access: Record<string, unknown> = { record: 'public', files: 'public' },
  filesEnabled = true,
): Promise<{ id: string; parent: string; write: Record<string, any> }> {
  const write = {
    access,
    files: { enabled: filesEnabled },
    media_files: { enabled: filesEnabled },
    metadata: { ...walkthroughMetadata(), title },
  };
  const d = must(await api('/api/records', { method: 'POST', token, body: write }), [201], `create draft ${title}`);
  return { id: d.body.id, parent: d.body.parent.id, write };
}

/** Init, upload and commit one file (`media` bucket or files). */
export async function putFile(token: string, id: string, key: string, media = false, content?: Buffer): Promise<void> {
  const kind = media ? 'media-files' : 'files';
  const base = `/api/records/${id}/draft/${kind}`;
  must(await api(base, { method: 'POST', token, body: [{ key }] }), [201], `init ${kind} ${key}`);
  must(
    await api(`${base}/${encodeURIComponent(key)}/content`, { method: 'PUT', token, raw: content ?? `content of ${key}` }),
    [200],
    `upload ${key}`,
  );
  must(await api(`${base}/${encodeURIComponent(key)}/commit`, { method: 'POST', token }), [200], `commit ${key}`);
}

/** Attach a community-submission review to `id` (status `created`); returns the request id. */
export async function attachReview(token: string, id: string, community: string): Promise<string> {
  const put = await api(`/api/records/${id}/draft/review`, {
    method: 'PUT',
    token,
    body: { type: 'community-submission', receiver: { community } },
  });
  return must(put, [200], 'attach review').body.id;
}

/** Attach a review to `id` and submit it; returns the request id. */
export async function submitReview(token: string, id: string, community: string): Promise<string> {
  const req = await attachReview(token, id, community);
  must(await api(`/api/records/${id}/draft/actions/submit-review`, { method: 'POST', token, body: {} }), [202], 'submit review');
  return req;
}

/** Publish `id` of `token` into `community` through its review, accepted by curator; waits until it is readable. */
async function publishThroughReview(w: Partial<World>, id: string, community: string, token = w.users!.owner.token): Promise<string> {
  const req = await submitReview(token, id, community);
  must(await api(`/api/requests/${req}/actions/accept`, { method: 'POST', token: w.users!.curator.token, body: {} }), [200], 'accept');
  await until(async () => (await api(`/api/records/${id}`, { token })).status === 200, `publication of ${id}`);
  return req;
}

/** Create a secret link of `level` to `id` (as owner). */
export async function createLink(token: string, id: string, level: LinkLevel): Promise<{ id: string; token: string }> {
  const l = must(
    await api(`/api/records/${id}/access/links`, { method: 'POST', token, body: { permission: level } }),
    [201],
    `link ${level}`,
  );
  return { id: l.body.id, token: l.body.token };
}

async function threeLinks(token: string, id: string): Promise<RecordFx['links']> {
  return {
    view: await createLink(token, id, 'view'),
    preview: await createLink(token, id, 'preview'),
    edit: await createLink(token, id, 'edit'),
  };
}

/** A metadata-only draft of owner (cheap: one call), with a secret link for a link actor. */
export async function freshDraft(w: World, actor?: string): Promise<{ id: string; token?: string }> {
  const d = await createRecordDraft(w.users.owner.token, 'Authz throwaway draft', { record: 'public', files: 'public' }, false);
  const level = actor?.startsWith('link:') ? (actor.slice(5) as LinkLevel) : undefined;
  return { id: d.id, ...(level ? { token: (await createLink(w.users.owner.token, d.id, level)).token } : {}) };
}

/** A published metadata-only record of owner, not in any community. */
export async function freshPublished(w: World): Promise<string> {
  const d = await freshDraft(w);
  must(await api(`/api/records/${d.id}/draft/actions/publish`, { method: 'POST', token: w.users.owner.token }), [202], 'publish fresh');
  return d.id;
}

/** A published record of owner with one file, not in any community (file-modification requests need files). */
export async function freshPublishedWithFile(w: World): Promise<string> {
  const d = await createRecordDraft(w.users.owner.token, 'Authz throwaway record with a file');
  await putFile(w.users.owner.token, d.id, 'data.txt');
  must(await api(`/api/records/${d.id}/draft/actions/publish`, { method: 'POST', token: w.users.owner.token }), [202], 'publish fresh');
  return d.id;
}

/** A metadata-only record of owner published into C (through a review curator accepted). */
export async function freshInCommunity(w: World): Promise<string> {
  const d = await freshDraft(w);
  await publishThroughReview(w, d.id, w.communities.public.id);
  return d.id;
}

/** The deletion body of the matrix (the tombstone never repeats the title). */
export const DELETION = { removal_reason: { id: 'spam' }, note: 'authz matrix', citation_text: 'A removed record.', is_visible: true };

/** A published record the administrator deleted. */
export async function freshDeleted(w: World): Promise<string> {
  const id = await freshPublished(w);
  must(await api(`/api/records/${id}/delete`, { method: 'DELETE', token: w.users.admin.token, body: DELETION }), [204], 'delete fresh');
  return id;
}

/** A community-submission request of owner to C, `created` or `submitted`. */
export async function freshRequest(w: World, submitted: boolean): Promise<string> {
  const d = await freshDraft(w);
  const owner = w.users.owner.token;
  return submitted ? submitReview(owner, d.id, w.communities.public.id) : attachReview(owner, d.id, w.communities.public.id);
}

/** A community made by the administrator, owned also by communityOwner; deleted when asked. */
export async function freshCommunity(w: World, deleted = false): Promise<string> {
  const admin = w.users.admin.token;
  const c = must(
    await api('/api/communities', { method: 'POST', token: admin, body: communityBody(uniqueSlug('authz'), 'Authz throwaway') }),
    [201],
    'community',
  );
  await addMember(admin, c.body.id, w.users.cowner, 'owner');
  if (deleted) must(await api(`/api/communities/${c.body.id}`, { method: 'DELETE', token: admin }), [204], 'delete community');
  return c.body.id;
}

/** A comment of owner on a request; returns its id. */
export async function comment(token: string, request: string, content: string): Promise<string> {
  const c = await api(`/api/requests/${request}/comments`, { method: 'POST', token, body: { payload: { content, format: 'html' } } });
  return must(c, [201], 'comment').body.id;
}

/** A one-pixel PNG: the communities' logo. */
export const LOGO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** The schema extension every community of the world registers (no title: the section is the community title). */
export const EXTENSION = { type: 'object', properties: { field: { type: 'string' } } };

/** Who may read what carries a marker: the levels of a state (InvenioRDM's record permission levels). */
export function levelActors(state: RecordState, level: 'manage' | 'curate' | 'review' | 'preview' | 'view'): string[] {
  const published = !['draft', 'review'].includes(state);
  const manage = ['owner', 'admin', ...(published ? ['curator', 'manager', 'cowner'] : [])];
  const curate = [...manage, `link:edit@${state}`];
  const review = [...curate, ...(state === 'review' ? ['curator', 'manager', 'cowner'] : [])];
  const preview = [...review, `link:preview@${state}`];
  const view = [...preview, `link:view@${state}`, ...(published ? ['reader'] : [])];
  return { manage, curate, review, preview, view }[level];
}

/** Run `tasks`, at most `n` at once; their results in order. */
async function inPool<T extends unknown[]>(n: number, tasks: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  const out: unknown[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < tasks.length) {
        const i = next++;
        out[i] = await (tasks[i] as () => Promise<unknown>)();
      }
    }),
  );
  return out as T;
}

/** Build the world. */
export async function buildWorld(): Promise<World> {
  const t0 = Date.now();
  const lap = (what: string) => process.stderr.write(`[authz] ${what} ready after ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  // Each user is a CLI process (seconds of start-up): three at a time, no more on two shared cores.
  const mk = (p: string, o: Partial<Parameters<typeof createUser>[0]> = {}) => createUser({ email: uniqueEmail(`authz-${p}`), ...o });
  const [owner_, other, reader] = await Promise.all([
    mk('owner', { name: 'Owen Owner' }),
    mk('other', { name: 'Otto Other' }),
    mk('reader', { name: 'Rita Reader' }),
  ]);
  const [curator, manager, cowner] = await Promise.all([
    mk('curator', { name: 'Cora Curator' }),
    mk('manager', { name: 'Max Manager' }),
    mk('cowner', { name: 'Cole Communityowner' }),
  ]);
  const [admin_, extra, invitee] = await Promise.all([
    mk('admin', { name: 'Ada Admin', admin: true }),
    mk('extra', { name: 'Ezra Extra' }),
    mk('invitee', { name: 'Ivy Invitee', private: true }),
  ]);
  const users = { owner: owner_, other, reader, curator, manager, cowner, admin: admin_ } satisfies Record<UserActor, TestUser>;
  const w: Partial<World> = { users, extra, invitee };
  lap('users');
  const admin = users.admin.token;
  const owner = users.owner.token;

  const m = {
    draftTitle: marker('draftsecret'),
    draftKey: `${marker('draftfile')}.txt`,
    reviewTitle: marker('reviewsecret'),
    reviewKey: `${marker('reviewfile')}.txt`,
    editTitle: marker('editsecret'),
    restrictedTitle: marker('restrictedsecret'),
    restrictedKey: `${marker('restrictedfile')}.txt`,
    embargoKey: `${marker('embargofile')}.txt`,
    hiddenKey: `${marker('hiddenfile')}.txt`,
    deletedTitle: marker('deletedsecret'),
    deletedKey: `${marker('deletedfile')}.txt`,
    rTitle: marker('communitysecret'),
    rSlug: marker('rslug'),
    created: marker('createdsecret'),
    createdComment: marker('createdcomment'),
    submittedComment: marker('submittedcomment'),
  };

  // Communities.
  const community = async (slug: string, title: string, access: Record<string, string>) => {
    const body = communityBody(slug, title, { review_policy: 'closed', ...access });
    const c = must(await api('/api/communities', { method: 'POST', token: admin, body }), [201], `community ${title}`);
    return { id: c.body.id as string, slug, body };
  };
  const C = await community(uniqueSlug('authz'), 'Authz community', {});
  const R = await community(m.rSlug, `Authz ${m.rTitle}`, { visibility: 'restricted' });
  const D = await community(uniqueSlug('authz-del'), 'Authz deleted community', {});
  // HTTP set-up runs in parallel chains (the CLI above could not).
  // (Not wider: each invitation is an RPC to the requests service, which times out at 5 s when
  // a loaded machine queues too many.)
  const members = async (c: { id: string }) => {
    for (const [u, role] of [
      [users.reader, 'reader'],
      [users.curator, 'curator'],
      [users.manager, 'manager'],
      [users.cowner, 'owner'],
      [extra, 'reader'],
    ] as const) {
      await addMember(admin, c.id, u, role);
    }
    const inv = { members: [{ type: 'user', id: invitee.id }], role: 'reader' };
    must(await api(`/api/communities/${c.id}/invitations`, { method: 'POST', token: admin, body: inv }), [204], 'invite');
    must(await api(`/api/communities/${c.id}/logo`, { method: 'PUT', token: users.cowner.token, raw: LOGO }), [200], 'logo');
  };
  await Promise.all([members(C), members(R), addMember(admin, D.id, users.cowner, 'owner')]);
  const featured = must(
    await api(`/api/communities/${C.id}/featured`, { method: 'POST', token: admin, body: { start_date: new Date().toISOString() } }),
    [201],
    'featured',
  );
  const schemaOf = async (slug: string) =>
    must(
      await api(`/api/community-schema-extension/${slug}`, { method: 'PUT', token: users.cowner.token, body: EXTENSION }),
      [200, 201],
      'extension',
    ).body.schema_id as string;
  w.communities = {
    public: { ...C, featured: featured.body.id, schema: await schemaOf(C.slug) },
    restricted: { ...R, schema: await schemaOf(R.slug) },
    deleted: D,
  };
  must(await api(`/api/communities/${D.id}`, { method: 'DELETE', token: admin }), [204], 'delete D');
  lap('communities');

  // Records.
  const rec = async (
    title: string,
    key: string,
    access: Record<string, unknown>,
    publish: boolean,
  ): Promise<RecordFx & { request?: string }> => {
    const d = await createRecordDraft(owner, title, access);
    await putFile(owner, d.id, key);
    await putFile(owner, d.id, 'media.txt', true);
    await putFile(owner, d.id, 'image.png', false, LOGO);
    must(
      await api(`/api/records/${d.id}/access/users`, {
        method: 'POST',
        token: owner,
        body: { grants: [{ subject: { type: 'user', id: extra.id }, permission: 'view' }] },
      }),
      [201],
      'grant',
    );
    const links = await threeLinks(owner, d.id);
    const request = publish ? await publishThroughReview(w, d.id, C.id) : undefined;
    return { id: d.id, parent: d.parent, key, media: 'media.txt', image: 'image.png', links, write: d.write, request };
  };
  const pub = { record: 'public', files: 'public' };
  const [draft, review, publicRecord, restricted, embargoed, restrictedFiles, deleted] = await inPool(3, [
    () => rec(m.draftTitle, m.draftKey, pub, false),
    () => rec(m.reviewTitle, m.reviewKey, pub, false),
    () => rec('Authz public record', 'open.txt', pub, true),
    () => rec(m.restrictedTitle, m.restrictedKey, { record: 'restricted', files: 'restricted' }, true),
    () =>
      rec(
        'Authz embargoed files',
        m.embargoKey,
        { record: 'public', files: 'restricted', embargo: { active: true, until: inDays(365), reason: 'authz' } },
        true,
      ),
    () => rec('Authz public record, restricted files', m.hiddenKey, { record: 'public', files: 'restricted' }, true),
    // Why retitled after its review: requests keep the title they were submitted with, readable by
    // their creator and receivers after the record is gone; the marker is the deleted record's own.
    () => rec('Authz record to be deleted', m.deletedKey, pub, true),
  ]);
  const submitted = await submitReview(owner, review.id, C.id);
  const retitled = { ...deleted.write, metadata: { ...deleted.write.metadata, title: m.deletedTitle } };
  must(await api(`/api/records/${deleted.id}/draft`, { method: 'POST', token: owner }), [201], 'edit deleted');
  must(await api(`/api/records/${deleted.id}/draft`, { method: 'PUT', token: owner, body: retitled }), [200], 'retitle deleted');
  must(await api(`/api/records/${deleted.id}/draft/actions/publish`, { method: 'POST', token: owner }), [202], 'publish deleted');
  must(await api(`/api/records/${deleted.id}/delete`, { method: 'DELETE', token: admin, body: DELETION }), [204], 'delete record');

  // The public record's pending edit: an edit draft titled with a marker.
  const edit = { ...publicRecord.write, metadata: { ...publicRecord.write.metadata, title: m.editTitle } };
  must(await api(`/api/records/${publicRecord.id}/draft`, { method: 'POST', token: owner }), [201], 'edit');
  must(await api(`/api/records/${publicRecord.id}/draft`, { method: 'PUT', token: owner, body: edit }), [200], 'edit title');
  lap('records');
  w.records = {
    draft,
    review,
    public: { ...publicRecord, write: edit, published: publicRecord.write },
    restricted,
    embargoed,
    restrictedFiles,
    deleted,
  };

  // Requests.
  const d2 = await createRecordDraft(owner, m.created, pub, false);
  const created = await attachReview(owner, d2.id, C.id);
  w.otherDraft = (await createRecordDraft(users.other.token, 'Otto draft', pub, false)).id;
  const extraDraft = await createRecordDraft(extra.token, 'Ezra record', pub, false);
  await publishThroughReview(w, extraDraft.id, C.id, extra.token);
  w.extraRecord = extraDraft.id;
  const got = async (id: string) => must(await api(`/api/requests/${id}`, { token: admin }), [200], 'request').body;
  const stored = async (id: string) => {
    const r = await got(id);
    return { title: r.title as string, topic: r.topic, receiver: r.receiver };
  };
  w.requests = {
    created: {
      id: created,
      comment: await comment(owner, created, m.createdComment),
      commentText: m.createdComment,
      ...(await stored(created)),
    },
    submitted: {
      id: submitted,
      comment: await comment(owner, submitted, m.submittedComment),
      commentText: m.submittedComment,
      ...(await stored(submitted)),
    },
    accepted: {
      id: publicRecord.request!,
      comment: await comment(owner, publicRecord.request!, 'A comment on an accepted request'),
      commentText: 'A comment on an accepted request',
      ...(await stored(publicRecord.request!)),
    },
  };

  const set = (...a: string[]) => new Set(a);
  const curators = ['curator', 'manager', 'cowner'];
  w.markers = [
    { text: m.draftTitle, what: 'draft title', readers: set(...levelActors('draft', 'preview')) },
    { text: m.draftKey, what: 'draft file key', readers: set(...levelActors('draft', 'preview')) },
    { text: m.reviewTitle, what: 'title of the draft in review', readers: set(...levelActors('review', 'preview')) },
    { text: m.reviewKey, what: 'file key of the draft in review', readers: set(...levelActors('review', 'preview')) },
    { text: m.editTitle, what: 'pending edit of the public record', readers: set(...levelActors('public', 'preview')) },
    { text: m.restrictedTitle, what: 'restricted record title', readers: set(...levelActors('restricted', 'view')) },
    { text: m.restrictedKey, what: 'restricted record file key', readers: set(...levelActors('restricted', 'view')) },
    { text: m.embargoKey, what: 'embargoed file key', readers: set(...levelActors('embargoed', 'view')) },
    { text: m.hiddenKey, what: 'restricted file key of a public record', readers: set(...levelActors('restrictedFiles', 'view')) },
    { text: m.deletedTitle, what: 'deleted record title', readers: set('admin') },
    { text: m.deletedKey, what: 'deleted record file key', readers: set('admin') },
    { text: m.rTitle, what: 'restricted community title', readers: set('reader', ...curators, 'admin') },
    { text: m.rSlug, what: 'restricted community slug', readers: set('reader', ...curators, 'admin') },
    { text: m.created, what: 'title of a draft with an unsubmitted review', readers: set('owner', 'admin') },
    { text: m.createdComment, what: 'comment on a created request', readers: set('owner', 'admin') },
    { text: m.submittedComment, what: 'comment on a submitted request', readers: set('owner', ...curators, 'admin') },
    // Hidden e-mail addresses (InvenioRDM's default e-mail visibility): the user and administrators.
    ...Object.entries(users).map(([a, u]) => ({ text: u.email, what: `e-mail of ${a}`, readers: set(a, 'admin') })),
    { text: extra.email, what: 'e-mail of extra', readers: set('admin') },
    { text: invitee.email, what: 'e-mail of invitee', readers: set('admin') },
  ];
  return w as World;
}
