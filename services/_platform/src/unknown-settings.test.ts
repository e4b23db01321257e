import { describe, expect, it, vi } from 'vitest';
import { DECLARED_SETTINGS } from '../../../proto/gen/settings.js';
import { baseConfigProperties } from './config.js';
import { reportUnknownSettings, TOOL_SETTINGS, unknownSettings } from './unknown-settings.js';

/** A small registry: what three services declare. */
const DECLARED = {
  NODE_ENV: ['records', 'files', 'gateway'],
  SEARCH_URL: ['records', 'files', 'gateway'],
  OAI_ADMIN_EMAIL: ['records'],
  FILES_MAX_FILE_BYTES: ['files'],
  FILES_RPC_TIMEOUT_MS: ['records'],
  S3_BUCKET: ['files'],
  RATE_LIMIT_ANONYMOUS: ['gateway'],
  RDM_CUSTOM_FIELDS: ['records'],
};

describe(unknownSettings.name, () => {
  it('should name RDM_* and family variables no service declares, with the close declared name', () => {
    const env = { RDM_BOGUS: '1', OAI_ADMIN_EMIAL: 'a@b.c', RDM_CUSTOM_FIELD: '[]' };
    expect(unknownSettings('records', env, DECLARED)).toEqual([
      { name: 'OAI_ADMIN_EMIAL', suggestion: { name: 'OAI_ADMIN_EMAIL', services: ['records'] } },
      { name: 'RDM_BOGUS' },
      { name: 'RDM_CUSTOM_FIELD', suggestion: { name: 'RDM_CUSTOM_FIELDS', services: ['records'] } },
    ]);
  });

  it('should stay silent about declared settings, tool variables and every common variable', () => {
    const env = {
      ...Object.fromEntries(Object.keys(DECLARED).map((k) => [k, 'x'])),
      ...Object.fromEntries(Object.keys(TOOL_SETTINGS).map((k) => [k, 'x'])),
      PATH: '/usr/bin',
      HOME: '/root',
      NODE_OPTIONS: '--max-old-space-size=512',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318',
      OTEL_SERVICE_NAME: 'records',
      HTTP_PROXY: 'http://proxy:3128',
      NATS_CONTEXT: 'dev',
      DATABASE_PASSWORD: 'x',
      E2E_PORT_BASE: '7200',
      BENCH_SECONDS: '5',
      CI: 'true',
      MAIL: '/var/mail/root',
      // Found in the e2e stack's logs: Python requests' CA bundle, and what `make up` gives every child.
      REQUESTS_CA_BUNDLE: '/etc/ssl/certs/ca-certificates.crt',
      GATEWAY_URL: 'http://127.0.0.1:5000',
      RECORDS_PORT: '6103',
      GATEWAY_PORT: '6000',
    };
    for (const svc of ['records', 'files', 'gateway', 'users', 'requests']) expect(unknownSettings(svc, env, DECLARED), svc).toEqual([]);
  });

  it('should report a family only in the services concerned (a shared environment shows a typo once per owner)', () => {
    const env = { OAI_ADMIN_EMIAL: 'x', FILES_MAX_FILE_BYTE: '1', S3_BUKET: 'b', RATE_LIMIT_ANONYMUS: '5', SEARCH_URLS: 'u', RDM_X: '1' };
    const names = (svc: string) => unknownSettings(svc, env, DECLARED).map((u) => u.name);
    expect(names('records')).toEqual(['OAI_ADMIN_EMIAL', 'RDM_X', 'SEARCH_URLS']);
    // FILES_ is the files service's own prefix, S3_ a family only files declares in.
    expect(names('files')).toEqual(['FILES_MAX_FILE_BYTE', 'RDM_X', 'S3_BUKET', 'SEARCH_URLS']);
    expect(names('gateway')).toEqual(['RATE_LIMIT_ANONYMUS', 'RDM_X', 'SEARCH_URLS']);
    // A service's own prefix is that service's, even when no setting of the registry uses it yet.
    expect(names('users')).toEqual(['RDM_X']);
    expect(unknownSettings('communities', { COMMUNITIES_LOGO_MAX: '1' }, DECLARED).map((u) => u.name)).toEqual(['COMMUNITIES_LOGO_MAX']);
  });

  it("should suggest a setting of another service under the owner's prefix", () => {
    expect(unknownSettings('files', { FILES_RPC_TIMEOUT: '5' }, DECLARED)).toEqual([
      { name: 'FILES_RPC_TIMEOUT', suggestion: { name: 'FILES_RPC_TIMEOUT_MS', services: ['records'] } },
    ]);
  });

  it('should skip the link variables a container runtime injects', () => {
    const env = {
      RDM_RECORDS_SERVICE_HOST: '10.0.0.1',
      RDM_RECORDS_SERVICE_PORT: '80',
      RDM_RECORDS_SERVICE_PORT_HTTP: '80',
      RDM_RECORDS_PORT: 'tcp://10.0.0.1:80',
      RDM_RECORDS_PORT_80_TCP: 'tcp://10.0.0.1:80',
      RDM_RECORDS_PORT_80_TCP_ADDR: '10.0.0.1',
    };
    expect(unknownSettings('records', env, DECLARED)).toEqual([]);
    expect(unknownSettings('records', { RDM_MAIL_PORT: '25' }, DECLARED).map((u) => u.name)).toEqual(['RDM_MAIL_PORT']);
  });

  it('should know, in the generated registry, every base setting under every service and each service-only one', () => {
    for (const key of Object.keys(baseConfigProperties)) {
      expect(DECLARED_SETTINGS[key], key).toEqual(expect.arrayContaining(['users', 'records', 'files', 'communities', 'gateway']));
    }
    expect(DECLARED_SETTINGS.OAI_ADMIN_EMAIL).toEqual(['records']);
    expect(DECLARED_SETTINGS.RATE_LIMIT_ANONYMOUS).toEqual(['gateway']);
    expect(DECLARED_SETTINGS.COMMUNITIES_CUSTOM_FIELDS).toEqual(['communities']);
    // With the real registry, the variables the project itself sets (charts, Dockerfile, make up) are all known.
    const shipped = {
      RDM_EVENTS_DIR: '/app/proto/events',
      SEARCH_ENGINE: 'postgres',
      FILES_STORAGE: 'local',
      COMMUNITIES_STORAGE: 'local',
      RECORDS_URL: 'http://r',
    };
    for (const svc of ['users', 'vocabularies', 'records', 'files', 'requests', 'communities', 'gateway']) {
      expect(unknownSettings(svc, shipped), svc).toEqual([]);
    }
  });
});

describe(reportUnknownSettings.name, () => {
  it('should log one warning naming each unknown setting and its suggestion, and nothing when all are known', () => {
    const warn = vi.fn();
    reportUnknownSettings('records', { OAI_ADMIN_EMIAL: 'x', RDM_BOGUS: '1', OAI_ADMIN_EMAIL: 'y' }, { warn }, DECLARED);
    expect(warn).toHaveBeenCalledTimes(1);
    const [fields, message] = warn.mock.calls[0];
    expect(fields).toEqual({ unknownSettings: ['OAI_ADMIN_EMIAL', 'RDM_BOGUS'], suggestions: { OAI_ADMIN_EMIAL: 'OAI_ADMIN_EMAIL' } });
    expect(message).toContain('OAI_ADMIN_EMIAL (did you mean OAI_ADMIN_EMAIL, a setting of records?); RDM_BOGUS');
    warn.mockClear();
    reportUnknownSettings('records', { OAI_ADMIN_EMAIL: 'y', PATH: '/bin' }, { warn }, DECLARED);
    expect(warn).not.toHaveBeenCalled();
  });
});
