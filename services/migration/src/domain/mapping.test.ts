import { describe, expect, it } from 'vitest';
import { version } from '../../test/support/fakes.js';
import { depositAccess, depositMetadata, importRequest } from './mapping.js';

describe(depositMetadata.name, () => {
  it('should turn resource_type into resource_types, reduce vocabulary entries to their ids and keep everything else as published', () => {
    const m = depositMetadata({
      title: 'Ωmega – “quoted”',
      resource_type: { id: 'dataset', title: { en: 'Dataset' } },
      languages: [{ id: 'eng', title: { en: 'English' } }],
      subjects: [{ id: 'http://x/1', subject: 'One', scheme: 'X' }, { subject: 'free' }],
      creators: [
        {
          person_or_org: { name: 'Døe, J', type: 'personal' },
          role: { id: 'editor', title: {} },
          affiliations: [{ id: '01ggx4157', name: 'CERN' }, { name: 'Free U' }],
        },
      ],
      dates: [{ date: '2020', type: { id: 'created', title: {} } }],
    });
    expect(m).toEqual({
      title: 'Ωmega – “quoted”',
      resource_types: [{ id: 'dataset' }],
      languages: [{ id: 'eng' }],
      subjects: [{ id: 'http://x/1' }, { subject: 'free' }],
      creators: [
        {
          person_or_org: { name: 'Døe, J', type: 'personal' },
          role: { id: 'editor' },
          affiliations: [{ id: '01ggx4157' }, { name: 'Free U' }],
        },
      ],
      dates: [{ date: '2020', type: { id: 'created' } }],
    });
  });
});

describe(depositAccess.name, () => {
  it('should keep restriction and the embargo with its date and reason', () => {
    expect(
      depositAccess({ record: 'public', files: 'restricted', embargo: { active: true, until: '2030-01-01', reason: 'Patent' } }),
    ).toEqual({
      record: 'public',
      files: 'restricted',
      embargo: { active: true, until: '2030-01-01', reason: 'Patent' },
    });
    expect(depositAccess({ record: 'restricted', files: 'restricted', embargo: { active: false, until: null, reason: null } })).toEqual({
      record: 'restricted',
      files: 'restricted',
    });
  });
});

describe(importRequest.name, () => {
  it('should order versions, keep ids, dates, PIDs but the source OAI identifier, and the owner, and carry dry_run', () => {
    const pids = { doi: { identifier: '10.5281/zenodo.2', provider: 'datacite', client: 'datacite' } };
    const req = importRequest(
      [
        version('p0000-00000', 'v0000-00002', 2, {
          pids: { ...pids, oai: { identifier: 'oai:old.example.org:v0000-00002', provider: 'oai' } },
        }),
        version('p0000-00000', 'v0000-00001', 1),
      ],
      new Map([['v0000-00002', [{ key: 'a', checksum: 'md5:00000000000000000000000000000000', size: 1, content: 'x' }]]]),
      true,
    );
    expect(req.dry_run).toBe(true);
    expect(req.parent).toEqual({ id: 'p0000-00000', created: '2021-01-01T00:00:00.000000+00:00', owner_id: '3' });
    expect(req.versions.map((v) => v.id)).toEqual(['v0000-00001', 'v0000-00002']);
    expect(req.versions[1]).toMatchObject({
      index: 2,
      updated: '2022-01-02T00:00:00.000000+00:00',
      record: { pids },
      files: [{ key: 'a', size: 1 }],
    });
  });
});
