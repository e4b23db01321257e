/**
 * Entry point of the records service: HTTP, the authorize-files RPC, the outbox relay, the
 * consumers (files committed, requests accepted / status, access requests, usage statistics, mailers), the embargo
 * job and the membership watch (`tsx src/main.ts`); `tsx src/main.ts migrate` migrates and exits.
 */
import { ConfigError, ensureStream, loadConfig, serviceMain } from '@rdm/platform';
import { createApp } from './app.js';
import { configProperties, dataciteConfigErrors, mailAddresses } from './config.js';
import { DataCiteClient } from './datacite/client.js';
import { dataciteWorkers } from './datacite/doi.consumer.js';
import { DoiSync } from './datacite/doi-sync.js';
import { VocabPropsCache } from './export/vocab-props.js';
import { EmbargoLifter } from './domain/embargo.job.js';
import { accessRequestWorkers } from './events/access-requests.consumer.js';
import { filesCommittedWorker } from './events/files-committed.consumer.js';
import { mailerWorker } from './events/mailer.consumer.js';
import { requestConsumerWorkers } from './events/requests-accepted.consumer.js';
import { statsWorkers } from './events/stats.consumer.js';
import { smtpSender } from './mail/mailer.js';
import { smtpUrlOrDevSink } from './mail/smtp-url.js';
import { serveAuthorizeFilesRpc } from './rpc/authorize-files.rpc.js';
import { serveCommunityUsageRpc } from './rpc/community-usage.rpc.js';
import { RpcUsersClient } from './rpc/users.client.js';
import { communityOwnerEmails } from './mail/owner-recipients.js';
import { RpcCommunitiesClient } from './rpc/communities.client.js';
import { RpcFilesClient } from './rpc/files.client.js';
import { RpcRequestsClient } from './rpc/requests.client.js';
import { RpcVocabulariesClient } from './rpc/vocabularies.client.js';
import { STATS_STREAM, StatsPublisher } from './stats/publisher.js';

await serviceMain({
  name: 'records',
  loadConfig: () => {
    const config = loadConfig(configProperties, process.env);
    const problems = dataciteConfigErrors(config);
    if (problems.length) throw new ConfigError(problems);
    return config;
  },
  migrations: new URL('./db/migrations', import.meta.url),
  async start({ config, logger, db, nats }) {
    const { nc, js, jsm } = nats;
    // Usage events (views here, downloads from files) are not outboxed: see stats/publisher.ts.
    await ensureStream(jsm, STATS_STREAM);
    // Why: the consumers need the REQUESTS stream; whoever starts first creates it, with exactly the
    // requests service's subjects (services/requests/src/events/streams.ts) so neither rewrites it.
    await ensureStream(jsm, { name: 'REQUESTS', subjects: ['rdm.requests.request.>'] });
    const communities = new RpcCommunitiesClient(nc, config.RPC_TIMEOUT_MS, config.COMMUNITIES_ROLES_TTL_MS);
    const vocabularies = new RpcVocabulariesClient(nc, config.RPC_TIMEOUT_MS);
    const { app, health, service, review, saga, index, stats, accessLinks, accessEffects } = createApp({
      ...(config.STATS_ENABLED ? { statsPublisher: new StatsPublisher(js) } : {}),
      config,
      logger,
      db,
      nc,
      files: new RpcFilesClient(nc, config.FILES_RPC_TIMEOUT_MS),
      vocabularies,
      requests: new RpcRequestsClient(nc, config.REQUESTS_RPC_TIMEOUT_MS, config.REQUESTS_ACTION_TIMEOUT_MS),
      communities,
    });
    const smtpUrl = await smtpUrlOrDevSink(config, logger);
    // DOI_PROVIDER=datacite: DOIs are registered at DataCite by consumers of the outbox events.
    const datacite =
      config.DOI_PROVIDER === 'datacite'
        ? dataciteWorkers({
            db,
            nats,
            logger,
            sync: new DoiSync({
              db,
              index,
              client: new DataCiteClient({
                url: config.DATACITE_URL,
                username: config.DATACITE_USERNAME,
                password: config.DATACITE_PASSWORD,
                timeoutMs: config.DATACITE_TIMEOUT_MS,
              }),
              props: new VocabPropsCache(vocabularies, { logger }),
              baseUrl: config.PUBLIC_BASE_URL,
              siteName: config.SITE_NAME,
              doiResolverUrl: config.DOI_RESOLVER_URL,
              logger,
            }),
          })
        : [];
    let stopMemberWatch: (() => Promise<void>) | undefined;
    return {
      app,
      health,
      rpc: [serveAuthorizeFilesRpc(nc, service, logger), serveCommunityUsageRpc(nc, db, logger)],
      workers: [
        {
          name: 'communities-member-watch',
          start: () => {
            stopMemberWatch = communities.watchMemberships(logger);
          },
          stop: async () => stopMemberWatch?.(),
        },
        filesCommittedWorker({ db, nats, service, logger }),
        new EmbargoLifter({ db, index, logger }).worker(config.EMBARGO_LIFT_INTERVAL_MS),
        mailerWorker({
          db,
          nats,
          sender: smtpSender(smtpUrl),
          logger,
          baseUrl: config.PUBLIC_BASE_URL,
          ...mailAddresses(config),
          recipientsOf: communityOwnerEmails({ db, communities, users: new RpcUsersClient(nc, config.RPC_TIMEOUT_MS) }),
        }),
        ...statsWorkers({ db, nats, stats, logger }),
        ...requestConsumerWorkers({ db, nats, saga: saga!, review: review!, logger }),
        ...accessRequestWorkers({
          db,
          nats,
          effects: accessEffects,
          links: accessLinks,
          sender: smtpSender(smtpUrl),
          logger,
          from: mailAddresses(config).from,
          baseUrl: config.PUBLIC_BASE_URL,
          secret: config.IDENTITY_SECRET,
        }),
        ...datacite,
      ],
    };
  },
});
