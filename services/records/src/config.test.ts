import { loadConfig } from '@rdm/platform';
import { describe, expect, it } from 'vitest';
import { configProperties } from './config.js';

describe('records configuration', () => {
  // Why: these were documented (INTEROP.md) and read by the OAI-PMH and sitemap code, but not
  // declared, so the loader dropped them and the defaults always applied.
  it('should take the OAI-PMH, DataCite export and sitemap settings from the environment', () => {
    const c = loadConfig(configProperties, {
      OAI_ADMIN_EMAIL: 'oai@example.org',
      OAI_PAGE_SIZE: '25',
      DATACITE_DATACENTER_SYMBOL: 'ABCD.EFGH',
      SITEMAP_MAX_URLS: '1000',
    });
    expect(c).toMatchObject({
      OAI_ADMIN_EMAIL: 'oai@example.org',
      OAI_PAGE_SIZE: 25,
      DATACITE_DATACENTER_SYMBOL: 'ABCD.EFGH',
      SITEMAP_MAX_URLS: 1000,
    });
  });
  it('should keep the defaults and refuse values out of range', () => {
    expect(loadConfig(configProperties, {})).toMatchObject({
      OAI_ADMIN_EMAIL: '',
      OAI_PAGE_SIZE: 100,
      DATACITE_DATACENTER_SYMBOL: '',
      SITEMAP_MAX_URLS: 50000,
    });
    expect(() => loadConfig(configProperties, { SITEMAP_MAX_URLS: '50001' })).toThrow(/SITEMAP_MAX_URLS/);
    expect(() => loadConfig(configProperties, { OAI_PAGE_SIZE: '0' })).toThrow(/OAI_PAGE_SIZE/);
  });
});
