package harness;

import com.yahoo.document.select.parser.ParseException;
import com.yahoo.documentapi.AsyncParameters;
import com.yahoo.documentapi.AsyncSession;
import com.yahoo.documentapi.DocumentAccess;
import com.yahoo.documentapi.DocumentAccessParams;
import com.yahoo.documentapi.SubscriptionParameters;
import com.yahoo.documentapi.SubscriptionSession;
import com.yahoo.documentapi.SyncParameters;
import com.yahoo.documentapi.SyncSession;
import com.yahoo.documentapi.VisitorDestinationParameters;
import com.yahoo.documentapi.VisitorDestinationSession;
import com.yahoo.documentapi.VisitorParameters;
import com.yahoo.documentapi.VisitorSession;
import com.yahoo.documentapi.messagebus.MessageBusVisitorSession;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * The DocumentAccess DocumentV1ApiHandler runs on in the harness: operations go to a
 * {@link HarnessAsyncSession} over the {@link Store}, visits to Vespa's own
 * MessageBusVisitorSession, whose CreateVisitor messages a {@link FakeDistributor} answers.
 */
public final class HarnessDocumentAccess extends DocumentAccess {

    private final Store store;
    private final ExecutorService replies = Executors.newCachedThreadPool(daemon("harness-storage"));
    private final ScheduledExecutorService visitorTasks = Executors.newScheduledThreadPool(2, daemon("harness-visitor"));
    private final HarnessAsyncSession session;

    public HarnessDocumentAccess(Store store) {
        super(new DocumentAccessParams().setDocumentmanagerConfig(store.config()));
        this.store = store;
        this.session = new HarnessAsyncSession(store, replies);
    }

    @Override
    public AsyncSession createAsyncSession(AsyncParameters parameters) {
        return session;
    }

    @Override
    public VisitorSession createVisitorSession(VisitorParameters parameters) throws ParseException {
        FakeDistributor distributor = new FakeDistributor(store, replies, session);
        MessageBusVisitorSession s = new MessageBusVisitorSession(parameters,
                new MessageBusVisitorSession.ThreadAsyncTaskExecutor(visitorTasks),
                distributor, distributor, null);
        s.start();
        return s;
    }

    @Override
    public SyncSession createSyncSession(SyncParameters parameters) {
        throw new UnsupportedOperationException("the harness has no sync session");
    }

    @Override
    public VisitorDestinationSession createVisitorDestinationSession(VisitorDestinationParameters parameters) {
        throw new UnsupportedOperationException("the harness has no visitor destination sessions");
    }

    @Override
    public SubscriptionSession createSubscription(SubscriptionParameters parameters) {
        throw new UnsupportedOperationException("the harness has no subscriptions");
    }

    @Override
    public SubscriptionSession openSubscription(SubscriptionParameters parameters) {
        throw new UnsupportedOperationException("the harness has no subscriptions");
    }

    @Override
    public void shutdown() {
        super.shutdown();
        visitorTasks.shutdownNow();
        replies.shutdownNow();
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
