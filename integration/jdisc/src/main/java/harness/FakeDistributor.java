package harness;

import com.yahoo.document.BucketId;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.select.DocumentSelector;
import com.yahoo.documentapi.ProgressToken;
import com.yahoo.documentapi.VisitorParameters;
import com.yahoo.documentapi.messagebus.MessageBusVisitorSession;
import com.yahoo.documentapi.messagebus.protocol.CreateVisitorMessage;
import com.yahoo.documentapi.messagebus.protocol.CreateVisitorReply;
import com.yahoo.documentapi.messagebus.protocol.DocumentMessage;
import com.yahoo.documentapi.messagebus.protocol.DocumentProtocol;
import com.yahoo.documentapi.messagebus.protocol.PutDocumentMessage;
import com.yahoo.documentapi.messagebus.protocol.RemoveDocumentMessage;
import com.yahoo.documentapi.messagebus.protocol.WrongDistributionReply;
import com.yahoo.messagebus.Error;
import com.yahoo.messagebus.ErrorCode;
import com.yahoo.messagebus.Message;
import com.yahoo.messagebus.MessageHandler;
import com.yahoo.messagebus.Reply;
import com.yahoo.messagebus.ReplyHandler;
import com.yahoo.messagebus.Result;
import com.yahoo.messagebus.ThrottlePolicy;
import com.yahoo.vdslib.VisitorStatistics;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The storage side of one visitor session: Vespa's real {@link MessageBusVisitorSession} sends its
 * CreateVisitor messages here instead of to messagebus. Like a distributor it first answers with
 * WrongDistribution and a cluster state of {@value #DISTRIBUTION_BITS} distribution bits (the
 * session starts at 1 bit), then visits one superbucket (or one explicit bucket of a location
 * selection) per CreateVisitor: it sends the matching
 * documents (Put, and Remove for tombstones when removes are visited) to the session's data
 * handler, waits for their acks, and replies with the bucket finished and the visitor statistics.
 * Sends are limited by the session's own throttle policy, as messagebus limits them.
 */
final class FakeDistributor implements MessageBusVisitorSession.SenderFactory, MessageBusVisitorSession.ReceiverFactory {

    static final int DISTRIBUTION_BITS = 8;
    /** The longest the distributor waits for the session to acknowledge a bucket's documents. */
    static final long MAX_ACK_WAIT_MILLIS = 60_000;
    static final String CLUSTER_STATE = "version:1 bits:" + DISTRIBUTION_BITS + " distributor:1 storage:1";

    private final Store store;
    private final ExecutorService executor;
    private final HarnessAsyncSession documents;
    private volatile MessageHandler dataHandler;

    FakeDistributor(Store store, ExecutorService executor, HarnessAsyncSession documents) {
        this.store = store;
        this.executor = executor;
        this.documents = documents;
    }

    @Override
    public MessageBusVisitorSession.Sender createSender(ReplyHandler replyHandler, VisitorParameters params) {
        return new Sender(replyHandler, params.getThrottlePolicy());
    }

    @Override
    public MessageBusVisitorSession.Receiver createReceiver(MessageHandler handler, String sessionName) {
        dataHandler = handler;
        return new MessageBusVisitorSession.Receiver() {
            @Override public void reply(Reply reply) {
                if (reply.getContext() instanceof CountDownLatch acks) acks.countDown();
            }
            @Override public void destroy() { }
            @Override public String getConnectionSpec() { return "harness/" + sessionName; }
        };
    }

    private final class Sender implements MessageBusVisitorSession.Sender {
        private final ReplyHandler replies;
        private final ThrottlePolicy throttle;
        private int pending;

        Sender(ReplyHandler replies, ThrottlePolicy throttle) {
            this.replies = replies;
            this.throttle = throttle;
        }

        @Override
        public Result send(Message msg) {
            synchronized (this) {
                if (throttle != null && !throttle.canSend(msg, pending))
                    return new Result(ErrorCode.SEND_QUEUE_FULL, "harness: too many pending visitors");
                if (throttle != null) throttle.processMessage(msg);
                pending++;
            }
            CreateVisitorMessage cv = (CreateVisitorMessage) msg;
            executor.execute(() -> {
                Reply reply;
                try {
                    reply = visit(cv);
                } catch (RuntimeException e) {
                    reply = new CreateVisitorReply(DocumentProtocol.REPLY_CREATEVISITOR);
                    reply.addError(new Error(ErrorCode.APP_FATAL_ERROR, "harness: " + e));
                }
                reply.setMessage(cv);
                reply.setContext(cv.getContext()); // as messagebus's swapState does: the throttle policy keeps its state there
                synchronized (this) {
                    pending--;
                    if (throttle != null) throttle.processReply(reply);
                }
                replies.handleReply(reply);
            });
            return Result.ACCEPTED;
        }

        @Override public synchronized int getPendingCount() { return pending; }
        @Override public void destroy() { }
    }

    /** Visits cv's superbucket and returns the reply for it. */
    private Reply visit(CreateVisitorMessage cv) {
        BucketId superbucket = cv.getBuckets().get(0);
        // A real distributor refuses a bucket with fewer bits than its cluster state's distribution
        // bits (the session starts at 1 bit and learns the state from this reply) and visits one with
        // as many or more: an explicit bucket set, which MessageBusVisitorSession visits when the
        // selection names a location (id.user, id.group, and so document/v1's group= and number=),
        // has 32-bit buckets, and its ExplicitBucketSource keeps them when the distribution bits
        // change, so refusing them would make the session resend them until the visit times out.
        if (superbucket.getUsedBits() < DISTRIBUTION_BITS) {
            Reply wrong = new WrongDistributionReply(CLUSTER_STATE);
            wrong.addError(new Error(DocumentProtocol.ERROR_WRONG_DISTRIBUTION, "harness: the cluster state has " + DISTRIBUTION_BITS + " distribution bits"));
            return wrong;
        }
        Faults.Fault fault = store.faults().take("visit");
        if (fault != null) {
            Reply failed = new CreateVisitorReply(DocumentProtocol.REPLY_CREATEVISITOR);
            failed.addError(new Error(switch (fault.kind()) {
                case TRANSIENT, OVERLOAD -> DocumentProtocol.ERROR_BUSY;
                case TIMEOUT -> ErrorCode.TIMEOUT;
                case STORAGE -> DocumentProtocol.ERROR_NO_SPACE;
                case ERROR -> DocumentProtocol.ERROR_INTERNAL_FAILURE;
            }, fault.message()));
            return failed;
        }
        DocumentSelector selector;
        try {
            selector = new DocumentSelector(cv.getDocumentSelection().isEmpty() ? "true" : cv.getDocumentSelection());
        } catch (Exception e) {
            Reply bad = new CreateVisitorReply(DocumentProtocol.REPLY_CREATEVISITOR);
            bad.addError(new Error(DocumentProtocol.ERROR_REJECTED, "Failed to parse document selection: " + e.getMessage()));
            return bad;
        }
        // Every document type of the harness is in the default bucket space; the global one is empty.
        List<Store.Entry> entries = "default".equals(cv.getBucketSpace()) ? store.inBucket(superbucket) : List.of();
        VisitorStatistics stats = new VisitorStatistics();
        stats.setBucketsVisited(1);
        long returned = 0, bytes = 0;
        CountDownLatch acks = new CountDownLatch(entries.size());
        int sent = 0;
        for (Store.Entry e : entries) {
            DocumentMessage m = null;
            boolean inTime = Long.compareUnsigned(e.timestamp(), cv.getFromTimestamp()) >= 0
                    && (cv.getToTimestamp() == 0 || Long.compareUnsigned(e.timestamp(), cv.getToTimestamp()) <= 0);
            if (inTime && e.removed()) {
                if (cv.getVisitRemoves() && selector.accepts(new DocumentRemove(e.id())) != com.yahoo.document.select.Result.FALSE) {
                    RemoveDocumentMessage rm = new RemoveDocumentMessage(e.id());
                    rm.setPersistedTimestamp(e.timestamp());
                    m = rm;
                }
            } else if (inTime && selector.accepts(new DocumentPut(e.doc())) == com.yahoo.document.select.Result.TRUE) {
                Document doc = documents.select(e.doc(), cv.getFieldSet());
                PutDocumentMessage pm = new PutDocumentMessage(new DocumentPut(doc));
                pm.setPersistedTimestamp(e.timestamp());
                m = pm;
            }
            if (m == null) continue;
            returned++;
            bytes += m.getApproxSize();
            m.setContext(acks);
            sent++;
            dataHandler.handleMessage(m);
        }
        for (int i = sent; i < entries.size(); i++) acks.countDown();
        stats.setDocumentsVisited(returned);
        stats.setDocumentsReturned(returned);
        stats.setBytesVisited(bytes);
        stats.setBytesReturned(bytes);
        try {
            // Bounded by the message's time left, and never longer than MAX_ACK_WAIT_MILLIS.
            if (!acks.await(Math.min(MAX_ACK_WAIT_MILLIS, Math.max(1, cv.getTimeRemaining())), TimeUnit.MILLISECONDS)) {
                Reply slow = new CreateVisitorReply(DocumentProtocol.REPLY_CREATEVISITOR);
                slow.addError(new Error(ErrorCode.TIMEOUT, "harness: the visitor's data was not acknowledged in time"));
                return slow;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Reply stopped = new CreateVisitorReply(DocumentProtocol.REPLY_CREATEVISITOR);
            stopped.addError(new Error(ErrorCode.APP_FATAL_ERROR, "harness: interrupted"));
            return stopped;
        }
        CreateVisitorReply done = new CreateVisitorReply(DocumentProtocol.REPLY_CREATEVISITOR);
        done.setLastBucket(ProgressToken.FINISHED_BUCKET);
        done.setVisitorStatistics(stats);
        return done;
    }
}
