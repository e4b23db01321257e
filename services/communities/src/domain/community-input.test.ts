import { describe, expect, it } from 'vitest';
import { expandMetadata, isUuid, parseCommunityBody, parseSlug } from './community-input.js';
import { parseMembersBody } from './member-input.js';

describe(parseSlug.name, () => {
  it('should lowercase and enforce the slug rules with InvenioRDM messages', () => {
    const errors: { field: string; messages: string[] }[] = [];
    expect(parseSlug('My-Comm_1', errors)).toBe('my-comm_1');
    expect(parseSlug('', errors)).toBeUndefined();
    expect(parseSlug('a b', errors)).toBeUndefined();
    expect(parseSlug('é', errors)).toBeUndefined();
    expect(parseSlug('9b1deb4d3b7d4bad9bdd2b0d7b3dcb6d', errors)).toBeUndefined();
    expect(parseSlug('x'.repeat(101), errors)).toBeUndefined();
    expect(errors.map((e) => e.messages[0])).toEqual([
      'Field cannot be blank or longer than 100 characters.',
      'The identifier should contain only letters, numbers, or dashes.',
      'The identifier should contain only letters, numbers, or dashes.',
      'The ID must not be an Universally Unique IDentifier (UUID).',
      'Field cannot be blank or longer than 100 characters.',
    ]);
    expect(isUuid('9B1DEB4D-3B7D-4BAD-9BDD-2B0D7B3DCB6D')).toBe(true);
  });
});

describe(parseCommunityBody.name, () => {
  it('should map the write access form to exactly the six read keys, with defaults', () => {
    const p = parseCommunityBody({
      slug: 's',
      metadata: { title: 't' },
      access: { visibility: 'restricted', member_policy: 'open', record_policy: 'restricted' },
    });
    expect(p.errors).toEqual([]);
    expect(p.access).toEqual({
      visibility: 'restricted',
      members_visibility: 'public',
      member_policy: 'open',
      record_submission_policy: 'closed',
      review_policy: 'closed',
      record_restricted_policy: 'restricted',
    });
    expect(parseCommunityBody({ slug: 's', metadata: { title: 't' } }).access.visibility).toBe('public');
  });

  it('should keep current access on update and refuse a slug change', () => {
    const current = parseCommunityBody({ slug: 's', metadata: { title: 't' }, access: { visibility: 'restricted' } }).access;
    const p = parseCommunityBody(
      { slug: 'other', metadata: { title: 't' }, access: { member_policy: 'open' } },
      { slug: 's', access: current },
    );
    expect(p.access).toMatchObject({ visibility: 'restricted', member_policy: 'open' });
    expect(p.errors).toEqual([{ field: 'slug', messages: ['The ID should be modified through the renaming URL instead.'] }]);
  });

  it('should collect field errors and vocabulary references', () => {
    const p = parseCommunityBody({
      slug: 'ok',
      metadata: {
        title: ' ',
        website: 'ftp://x',
        organizations: [{ id: 'ror1' }, {}],
        funding: [{ funder: { id: 'f' }, award: { id: 'a' } }, {}],
        type: { id: 'project' },
      },
      access: { review_policy: 'sometimes' },
    });
    expect(p.errors.map((e) => e.field).sort()).toEqual([
      'access.review_policy',
      'metadata.funding.1.funder',
      'metadata.organizations.1',
      'metadata.title',
      'metadata.website',
    ]);
    expect(p.refs).toEqual([
      { field: 'metadata.type', type: 'communitytypes', id: 'project' },
      { field: 'metadata.organizations.0', type: 'affiliations', id: 'ror1' },
      { field: 'metadata.funding.0.funder', type: 'funders', id: 'f' },
      { field: 'metadata.funding.0.award', type: 'awards', id: 'a' },
    ]);
  });

  it('should sanitise curation_policy and page', () => {
    const p = parseCommunityBody({ slug: 's', metadata: { title: 't', page: '<b onclick="x()">hi</b><script>bad()</script>' } });
    expect(p.metadata.page).toBe('<b>hi</b>');
  });
});

describe(expandMetadata.name, () => {
  it('should expand type, organizations and funding from resolved entries', () => {
    const entries = new Map([
      ['communitytypes:event', { id: 'event', title: { en: 'Event' } }],
      ['affiliations:ror1', { id: 'ror1', name: 'Org', identifiers: [{ identifier: 'ror1', scheme: 'ror' }] }],
      ['funders:f', { id: 'f', name: 'Funder' }],
    ]);
    expect(
      expandMetadata(
        { type: { id: 'event' }, organizations: [{ id: 'ror1' }, { name: 'Free' }], funding: [{ funder: { id: 'f' } }] },
        entries,
      ),
    ).toEqual({
      type: { id: 'event', title: { en: 'Event' } },
      organizations: [{ id: 'ror1', name: 'Org', identifiers: [{ identifier: 'ror1', scheme: 'ror' }] }, { name: 'Free' }],
      funding: [{ funder: { id: 'f', name: 'Funder' } }],
    });
  });
});

describe(parseMembersBody.name, () => {
  it('should accept users only, 1..100 entries and known roles', () => {
    expect(parseMembersBody({ members: [{ type: 'user', id: 5 }], role: 'reader', visibility: false })).toEqual({
      members: [{ type: 'user', id: '5' }],
      role: 'reader',
      visible: false,
    });
    expect(() => parseMembersBody({ members: [] })).toThrow('A validation error occurred.');
    expect(() => parseMembersBody({ members: [{ type: 'group', id: 'g' }] })).toThrow();
    expect(() => parseMembersBody({ members: [{ type: 'user', id: '1' }], role: 'boss' })).toThrow();
    expect(() => parseMembersBody({ members: [{ type: 'user', id: '1' }], message: 'hi' })).toThrow();
    expect(parseMembersBody({ members: [{ type: 'user', id: '1' }], message: 'hi' }, { allowMessage: true }).message).toBe('hi');
  });
});
