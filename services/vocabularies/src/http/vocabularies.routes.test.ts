import { createHttpApp, createLogger, mountRouter } from '@rdm/platform';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { VocabulariesService } from '../domain/vocabularies.service.js';
import { etagMatches } from '@rdm/platform';
import { vocabulariesRouter } from './vocabularies.routes.js';

describe(etagMatches.name, () => {
  it('should match the same tag, weak tags, lists and *', () => {
    expect(etagMatches('"3"', '"3"')).toBe(true);
    expect(etagMatches('W/"3"', '"3"')).toBe(true);
    expect(etagMatches('"1", "3"', '"3"')).toBe(true);
    expect(etagMatches('*', '"3"')).toBe(true);
    expect(etagMatches('"2"', '"3"')).toBe(false);
    expect(etagMatches('', '"3"')).toBe(false);
  });
});

describe(vocabulariesRouter.name, () => {
  /** The app over a service that must never be reached. */
  function app() {
    const unreachable = new Proxy({} as VocabulariesService, {
      get: (_t, name) => () => {
        throw new Error(`service.${String(name)} must not be called`);
      },
    });
    const { app } = createHttpApp({ name: 'vocabularies', logger: createLogger('vocabularies', 'silent') });
    mountRouter(app, vocabulariesRouter(unreachable));
    return request(app.callback());
  }

  it('should refuse NUL characters in query values with 400 before touching the database', async () => {
    for (const url of [
      '/api/vocabularies?q=a%00b',
      '/api/vocabularies/licenses?q=%00',
      '/api/funders?suggest=x%00',
      '/api/names?tags=%00&tags=a',
    ]) {
      const res = await app().get(url);
      expect(res.status, url).toBe(400);
      expect(res.body).toMatchObject({
        status: 400,
        message: 'Invalid querystring parameters.',
        errors: [{ messages: ['Must not contain NUL characters.'] }],
      });
    }
  });

  it('should answer 404 for an id with a NUL character', async () => {
    for (const url of ['/api/vocabularies/licenses/a%00b', '/api/subjects/x%00', '/api/affiliations/%00']) {
      const res = await app().get(url);
      expect(res.status, url).toBe(404);
      expect(res.body).toEqual({ status: 404, message: 'The persistent identifier does not exist.' });
    }
  });
});
