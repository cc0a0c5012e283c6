package com.yahoo.document.restapi.resource;

import com.yahoo.cloud.config.ClusterListConfig;
import com.yahoo.document.FixedBucketSpaces;
import com.yahoo.document.restapi.DocumentOperationExecutorConfig;
import com.yahoo.documentapi.DocumentAccess;
import com.yahoo.documentapi.DocumentAccessParams;
import com.yahoo.documentapi.local.LocalDocumentAccess;
import com.yahoo.jdisc.Metric;
import com.yahoo.jdisc.Request;
import com.yahoo.jdisc.handler.AbstractRequestHandler;
import com.yahoo.jdisc.handler.ContentChannel;
import com.yahoo.jdisc.handler.ResponseHandler;
import com.yahoo.metrics.simple.MetricReceiver;
import com.yahoo.vespa.config.content.AllClustersBucketSpacesConfig;
import harness.HarnessDocumentAccess;
import harness.Store;

import java.time.Clock;
import java.time.Duration;

/**
 * Vespa's own DocumentV1ApiHandler (this class's name ends like it, as Vespa's CLI looks for that suffix
 * on / before it visits), built through its package-private constructor (as Vespa's
 * DocumentV1ApiTest builds it) over the harness's DocumentAccess, and bound where Vespa binds it
 * (http://*&#47;document/v1/*). This class only delegates: every path, parameter, error text and
 * status is the real handler's. It lives in the handler's package because that constructor is
 * package-private; it holds no code of Vespa's.
 * <p>
 * The system property harness.access=local swaps in Vespa's LocalDocumentAccess (for comparison only).
 */
public final class HarnessDocumentV1ApiHandler extends AbstractRequestHandler {

    private final DocumentV1ApiHandler real;
    private final DocumentAccess access;

    public HarnessDocumentV1ApiHandler(Metric metric, MetricReceiver metricReceiver) {
        Store store = Store.get();
        // -Dharness.access=local runs Vespa's shipped LocalDocumentAccess instead, to show why the harness
        // has its own (a fresh visit fails with a NullPointerException; no test-and-set).
        this.access = "local".equals(System.getProperty("harness.access"))
                ? new LocalDocumentAccess(new DocumentAccessParams().setDocumentmanagerConfig(store.config()))
                : new HarnessDocumentAccess(store);
        String cluster = store.cluster();
        AllClustersBucketSpacesConfig.Cluster.Builder spaces = new AllClustersBucketSpacesConfig.Cluster.Builder();
        store.config().doctype().forEach(t -> {
            if (!t.name().equals("document")) {
                spaces.documentType(t.name(), new AllClustersBucketSpacesConfig.Cluster.DocumentType.Builder()
                        .bucketSpace(FixedBucketSpaces.defaultSpace()));
            }
        });
        this.real = new DocumentV1ApiHandler(Clock.systemUTC(), Duration.ofSeconds(5), metric, metricReceiver, access,
                store.config(), new DocumentOperationExecutorConfig.Builder().build(),
                new ClusterListConfig.Builder().storage(new ClusterListConfig.Storage.Builder()
                        .configid("harness/" + cluster).name(cluster)).build(),
                new AllClustersBucketSpacesConfig.Builder().cluster(cluster, spaces).build());
    }

    @Override
    public ContentChannel handleRequest(Request request, ResponseHandler handler) {
        return real.handleRequest(request, handler);
    }

    @Override
    public void handleTimeout(Request request, ResponseHandler handler) {
        real.handleTimeout(request, handler);
    }

    @Override
    public void destroy() {
        real.destroy();
        access.shutdown();
    }
}
