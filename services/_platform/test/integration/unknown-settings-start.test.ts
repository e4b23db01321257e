/**
 * The start path reports unknown settings (issue 19, item 7): a real service entry point
 * (`serviceMain`, here vocabularies) and the gateway's own main, started as processes with a few
 * misspelt or invented variables in their environment, each log one warning naming what it is
 * concerned with, before anything else can go wrong. NATS points at a closed port, so neither
 * gets further than its connection attempt and nothing touches shared state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROTO_DIR } from '../../../../proto/tools/gen-contracts.js';

const ROOT = join(PROTO_DIR, '..');
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Start `services/<svc>/src/main.ts` and resolve with the first log line whose `msg` matches. */
function startAndWatch(svc: string, extraEnv: Record<string, string>, msg: RegExp): Promise<Record<string, any>> {
  // Why a minimal environment: the runner's own variables must not decide what is reported.
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: join(ROOT, 'services', svc),
    env: { ...base, NODE_ENV: 'development', LOG_LEVEL: 'info', PORT: '65123', NATS_URL: 'nats://127.0.0.1:1', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${svc}: no matching log line in 90 s\n${out}\n${err}`)), 90_000);
    child.stderr?.on('data', (b: Buffer) => {
      err += b.toString();
    });
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const entry = JSON.parse(line) as Record<string, any>;
          if (typeof entry.msg === 'string' && msg.test(entry.msg)) {
            clearTimeout(timer);
            child.kill('SIGKILL');
            resolve(entry);
            return;
          }
        } catch {
          // a partial line: wait for the rest
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${svc} exited (${code}) before logging it\n${out}\n${err}`));
    });
  });
}

describe('unknown settings at start', () => {
  const env = { RDM_BOGUS_SETTING: '1', OAI_ADMIN_EMIAL: 'oai@example.org', RATE_LIMIT_ANONYMUS: '5', PATH_EXTRA: 'x' };

  it('should be logged by a service started through serviceMain (only the families it is concerned with)', async () => {
    const entry = await startAndWatch('vocabularies', env, /^unknown settings/);
    expect(entry.level).toBe(40);
    expect(entry.unknownSettings).toEqual(['RDM_BOGUS_SETTING']);
    expect(entry.msg).toContain('RDM_BOGUS_SETTING');
  }, 120_000);

  it("should be logged by the gateway's own main, with the declared name it probably meant", async () => {
    const entry = await startAndWatch('gateway', env, /^unknown settings/);
    expect(entry.unknownSettings).toEqual(['RATE_LIMIT_ANONYMUS', 'RDM_BOGUS_SETTING']);
    expect(entry.suggestions).toEqual({ RATE_LIMIT_ANONYMUS: 'RATE_LIMIT_ANONYMOUS' });
    expect(entry.msg).toContain('RATE_LIMIT_ANONYMUS (did you mean RATE_LIMIT_ANONYMOUS, a setting of gateway?)');
  }, 120_000);
});
