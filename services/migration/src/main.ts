/**
 * The migration tool from a running InvenioRDM (issue 26), a service of its own with schema
 * `migration` (runs, checkpoints, reports):
 *   tsx src/main.ts migrate                         create/upgrade its schema
 *   tsx src/main.ts run --url URL --token TOKEN [--since ISO] [--dry-run] [--report FILE]
 * (`make migrate-from-invenio URL=… TOKEN=… [SINCE=…] [DRY_RUN=1]` runs both). Progress lines go
 * to stderr, the readable summary to stderr at the end, the JSON report to FILE (default
 * `migration-report-<run>.json`) and to `runs.report`. Exit status 0 when nothing failed, 1 when
 * some record failed (the report says which and why), 2 on bad arguments or an unusable source.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig, serviceMain } from '@rdm/platform';
import { configProperties } from './config.js';
import { runMigration } from './domain/runner.js';
import { summary } from './domain/report.js';
import { finishRun, PgCheckpoints, startRun } from './repo/checkpoints.repo.js';
import { InvenioSource, SourceError } from './source/invenio.client.js';
import { ServicesTarget } from './target/target.js';

const USAGE =
  'usage: tsx src/main.ts migrate | run --url <InvenioRDM URL> --token <admin token> [--since <ISO date>] [--dry-run] [--report <file>]';

const command = process.argv[2];
if (command !== 'migrate' && command !== 'run') {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

await serviceMain({
  name: 'migration',
  loadConfig: () => loadConfig(configProperties, process.env),
  migrations: new URL('./db/migrations', import.meta.url),
  stream: false,
  start() {
    throw new Error(USAGE);
  },
  commands: {
    async run({ config, db, nats, logger }) {
      const { values } = parseArgs({
        args: process.argv.slice(3),
        options: {
          url: { type: 'string' },
          token: { type: 'string' },
          since: { type: 'string' },
          'dry-run': { type: 'boolean' },
          report: { type: 'string' },
          limit: { type: 'string' },
        },
      });
      if (!values.url || !/^https?:\/\//.test(values.url) || !values.token) {
        process.stderr.write(`${USAGE}\n`);
        process.exit(2);
      }
      if (values.since && Number.isNaN(Date.parse(values.since))) {
        process.stderr.write(`--since: not a date: ${values.since}\n`);
        process.exit(2);
      }
      const runId = randomUUID();
      const source = new InvenioSource({
        url: values.url,
        token: values.token,
        ratePerSecond: config.MIGRATION_SOURCE_RATE,
        pageSize: config.MIGRATION_PAGE_SIZE,
      });
      const target = new ServicesTarget({
        nc: nats.nc,
        filesUrl: config.FILES_URL,
        identitySecret: config.IDENTITY_SECRET,
        rpcTimeoutMs: config.MIGRATION_RPC_TIMEOUT_MS,
      });
      const dryRun = values['dry-run'] === true;
      // Why our own exit: serviceMain ends a command with status 0; a failed record is status 1.
      const exit = async (code: number) => {
        await nats.nc.drain().catch(() => undefined);
        await db.destroy();
        process.exit(code);
      };
      await startRun(db, { id: runId, sourceUrl: source.url, since: values.since, dryRun });
      try {
        const report = await runMigration(source, target, new PgCheckpoints(db, source.url, runId), {
          runId,
          since: values.since,
          dryRun,
          ...(values.limit ? { limit: Number(values.limit) } : {}),
          progress: (l) => process.stderr.write(`${l}\n`),
        });
        await finishRun(db, runId, 'finished', report);
        const file = values.report ?? `migration-report-${runId}.json`;
        await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
        process.stderr.write(`${summary(report)}\n  report: ${file}\n`);
        if (report.records.failed > 0) await exit(1);
      } catch (err) {
        await finishRun(db, runId, 'failed', null);
        if (err instanceof SourceError) {
          process.stderr.write(`error: ${err.message}\n`);
          await exit(2);
        }
        logger.error({ err }, 'migration failed');
        throw err;
      }
    },
  },
});
