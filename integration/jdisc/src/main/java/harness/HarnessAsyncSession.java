package harness;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentOperation;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.TestAndSetCondition;
import com.yahoo.document.fieldset.AllFields;
import com.yahoo.document.fieldset.FieldSet;
import com.yahoo.document.fieldset.FieldSetRepo;
import com.yahoo.document.select.DocumentSelector;
import com.yahoo.documentapi.AsyncSession;
import com.yahoo.documentapi.DocumentOperationParameters;
import com.yahoo.documentapi.DocumentResponse;
import com.yahoo.documentapi.RemoveResponse;
import com.yahoo.documentapi.Response;
import com.yahoo.documentapi.ResponseHandler;
import com.yahoo.documentapi.Result;
import com.yahoo.documentapi.UpdateResponse;
import com.yahoo.messagebus.Error;
import com.yahoo.messagebus.ErrorCode;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.LongFunction;

import static com.yahoo.documentapi.DocumentOperationParameters.parameters;

/**
 * The asynchronous session DocumentV1ApiHandler sends its operations to: it applies them to the
 * {@link Store} as a content node would — test-and-set conditions through Vespa's DocumentSelector,
 * create-if-missing, DocumentUpdate.applyTo, field sets through FieldSetRepo — and answers on an
 * executor thread, as replies from storage arrive on messagebus threads.
 */
final class HarnessAsyncSession implements AsyncSession {

    private final Store store;
    private final ExecutorService executor;
    private final AtomicLong requests = new AtomicLong();
    private final LinkedBlockingQueue<Response> responses = new LinkedBlockingQueue<>();
    private final FieldSetRepo fieldSets = new FieldSetRepo();

    HarnessAsyncSession(Store store, ExecutorService executor) {
        this.store = store;
        this.executor = executor;
    }

    @Override public Result put(Document document) { return put(new DocumentPut(document), parameters()); }
    @Override public Result get(DocumentId id) { return get(id, parameters()); }
    @Override public Result remove(DocumentId id) { return remove(new DocumentRemove(id), parameters()); }
    @Override public Result update(DocumentUpdate update) { return update(update, parameters()); }

    @Override
    public Result put(DocumentPut put, DocumentOperationParameters params) {
        return sendWrite("put", params, put, put.getCreateIfNonExistent(),
                (req, failed) -> new DocumentResponse(req, null, failed, Response.Outcome.CONDITION_FAILED),
                (req, old) -> {
                    store.write(put.getId(), put.getDocument());
                    return new DocumentResponse(req, put.getDocument());
                });
    }

    @Override
    public Result update(DocumentUpdate update, DocumentOperationParameters params) {
        return sendWrite("update", params, update, update.getCreateIfNonExistent(), HarnessAsyncSession::conditionFailed,
                (req, old) -> {
                    if (old == null && !update.getCreateIfNonExistent()) return new UpdateResponse(req, false);
                    Document doc = old == null ? new Document(update.getDocumentType(), update.getId()) : old.clone();
                    update.applyTo(doc);
                    store.write(update.getId(), doc);
                    return new UpdateResponse(req, true);
                });
    }

    @Override
    public Result remove(DocumentRemove remove, DocumentOperationParameters params) {
        return sendWrite("remove", params, remove, false, HarnessAsyncSession::conditionFailed,
                (req, old) -> {
                    if (old == null) return new RemoveResponse(req, false);
                    store.write(remove.getId(), null);
                    return new RemoveResponse(req, true);
                });
    }

    /** What a write does once its condition held: its response, given the old document (null: none). */
    private interface Write {
        Response apply(long req, Document old);
    }

    /** The response of an operation whose test-and-set condition failed, saying why. */
    private static Response conditionFailed(long req, String why) {
        return new Response(req, why, Response.Outcome.CONDITION_FAILED);
    }

    /**
     * Sends a write of operation's document: under the document's lock, the old document is
     * checked against the operation's condition (failed makes the response when it does not hold,
     * create says whether a missing document passes) and then handed to write.
     */
    private Result sendWrite(String op, DocumentOperationParameters params, DocumentOperation operation, boolean create,
                             BiFunction<Long, String, Response> failed, Write write) {
        return send(op, params, req -> {
            DocumentId id = operation.getId();
            synchronized (store.lock(id)) {
                Document old = store.document(id);
                String why = conditionFails(operation.getCondition(), operation, old, create);
                if (why != null) return failed.apply(req, why);
                return write.apply(req, old);
            }
        });
    }

    @Override
    public Result get(DocumentId id, DocumentOperationParameters params) {
        return send("get", params, req -> {
            Document doc = store.document(id);
            if (doc == null) return new DocumentResponse(req, null);
            return new DocumentResponse(req, select(doc, params.fieldSet().orElse(AllFields.NAME)));
        });
    }

    /** A copy of doc holding only the fields of fieldSet (a field-set string as document/v1 passes it). */
    Document select(Document doc, String fieldSet) {
        FieldSet fs = fieldSets.parse(store.types(), fieldSet);
        Document out = new Document(doc.getDataType(), doc.getId());
        fieldSets.copyFields(doc, out, fs);
        return out;
    }

    /**
     * Why op's condition fails against old (null: it holds or there is none). The condition is
     * parsed first, before the document is looked at, as the content node parses it before it
     * reads the document (storage/src/vespa/storage/persistence/testandsethelper.cpp: the
     * TestAndSetHelper constructor parses, fetch_and_match_selection reads; so a condition that does not parse is an error of storage, which the
     * handler turns into a 500, also for a missing document). A missing document then fails every
     * condition unless the operation creates it.
     */
    private static String conditionFails(TestAndSetCondition condition, DocumentOperation op, Document old, boolean create) {
        if (condition == null || !condition.isPresent()) return null;
        DocumentSelector selector;
        try {
            selector = new DocumentSelector(condition.getSelection());
        } catch (Exception e) {
            throw new BadCondition("Failed to parse test and set condition: " + e.getMessage(), e);
        }
        if (old == null) return create ? null : "Document does not exist";
        return selector.accepts(new DocumentPut(old)) == com.yahoo.document.select.Result.TRUE
                ? null
                : "Condition did not match document";
    }

    /** A test-and-set condition that does not parse. */
    static final class BadCondition extends RuntimeException {
        BadCondition(String message, Throwable cause) { super(message, cause); }
    }

    /**
     * Runs apply on the executor and hands its response to the operation's response handler,
     * unless an armed fault for op says otherwise.
     */
    private Result send(String op, DocumentOperationParameters params, LongFunction<Response> apply) {
        Faults.Fault fault = store.faults().take(op);
        if (fault != null && fault.kind() == Faults.Kind.TRANSIENT) {
            return new Result(Result.ResultType.TRANSIENT_ERROR, new Error(ErrorCode.TRANSIENT_ERROR, fault.message()));
        }
        long req = requests.incrementAndGet();
        ResponseHandler handler = params.responseHandler().orElse(responses::add);
        executor.execute(() -> {
            Response r;
            if (fault != null) {
                r = new Response(req, fault.message(), switch (fault.kind()) {
                    case OVERLOAD -> Response.Outcome.OVERLOAD;
                    case TIMEOUT -> Response.Outcome.TIMEOUT;
                    case STORAGE -> Response.Outcome.INSUFFICIENT_STORAGE;
                    default -> Response.Outcome.ERROR;
                });
            } else {
                try {
                    r = apply.apply(req);
                } catch (RuntimeException e) {
                    r = new Response(req, e.getMessage(), Response.Outcome.ERROR);
                }
            }
            handler.handleResponse(r);
        });
        return new Result(req);
    }

    @Override public double getCurrentWindowSize() { return 100; }
    @Override public Response getNext() { return responses.poll(); }
    @Override public Response getNext(int timeoutMs) throws InterruptedException { return responses.poll(timeoutMs, TimeUnit.MILLISECONDS); }
    @Override public void destroy() { }

}
