package harness;

import com.yahoo.document.BucketId;
import com.yahoo.document.BucketIdFactory;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.document.serialization.DocumentDeserializerFactory;
import com.yahoo.document.serialization.DocumentSerializerFactory;
import com.yahoo.io.GrowableByteBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The harness's storage: the documents (and their tombstones) of every document type, with the
 * timestamp of their last write, plus the fault switches of the control endpoint. One store per
 * JVM, shared by the document/v1 handler (through {@link HarnessDocumentAccess}) and the searcher.
 * Writes to one document are serialised by {@link #lock(DocumentId)}.
 */
public final class Store {

    /** A document, or the tombstone of a removed one (doc == null), with its write timestamp. */
    public record Entry(DocumentId id, Document doc, long timestamp, BucketId bucket) {
        public boolean removed() { return doc == null; }
    }

    private static volatile Store instance;

    private final DocumentmanagerConfig config;
    private final DocumentTypeManager types;
    private final BucketIdFactory buckets = new BucketIdFactory();
    private final ConcurrentSkipListMap<String, Entry> entries = new ConcurrentSkipListMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();
    private final AtomicLong clock = new AtomicLong(System.currentTimeMillis() * 1000);
    private final Faults faults = new Faults();
    private final String cluster;
    private volatile Map<String, Set<String>> summaryFields = Map.of();
    private volatile Map<String, Map<String, String>> firstPhases = Map.of();
    private volatile Map<String, Map<String, String>> summaryAttributes = Map.of();

    private Store(DocumentmanagerConfig config, String cluster) {
        this.config = config;
        this.types = new DocumentTypeManager(config);
        this.cluster = cluster;
    }

    /** Creates the JVM's store; Main calls it before the container starts. */
    public static synchronized Store create(DocumentmanagerConfig config, String cluster) {
        if (instance != null) throw new IllegalStateException("the store exists already");
        instance = new Store(config, cluster);
        return instance;
    }

    /** The JVM's store, created by Main. */
    public static Store get() {
        Store s = instance;
        if (s == null) throw new IllegalStateException("the harness store was not created: start the harness with harness.Main");
        return s;
    }

    public DocumentmanagerConfig config() { return config; }
    public DocumentTypeManager types() { return types; }
    public String cluster() { return cluster; }
    public Faults faults() { return faults; }

    /** Sets the summary fields of each document type (from the schemas; Main sets them). */
    public void setSummaryFields(Map<String, Set<String>> fields) { summaryFields = Map.copyOf(fields); }

    /** The fields of type that its default summary holds. */
    public Set<String> summaryFields(String type) { return summaryFields.getOrDefault(type, Set.of()); }

    /** Sets, per document type, the summary fields read from a single-value attribute, with its type (Main sets them). */
    public void setSummaryAttributes(Map<String, Map<String, String>> fields) { summaryAttributes = Map.copyOf(fields); }

    /** The type of the single-value attribute type's summary field is read from (BOOL, INTEGER, ...), null when it is read from the document. */
    public String summaryAttribute(String type, String field) {
        return summaryAttributes.getOrDefault(type, Map.of()).get(field);
    }

    /** Sets the first-phase expression of each rank profile of each document type (Main sets them). */
    public void setFirstPhases(Map<String, Map<String, String>> phases) { firstPhases = Map.copyOf(phases); }

    /** The first-phase expression of type's rank profile, "" when it has none, null when there is no such profile. */
    public String firstPhase(String type, String profile) {
        return firstPhases.getOrDefault(type, Map.of()).get(profile);
    }

    /** The monitor that serialises the writes to id. */
    public Object lock(DocumentId id) {
        return locks.computeIfAbsent(id.toString(), k -> new Object());
    }

    /** The live document id, or null when it is missing or removed. */
    public Document document(DocumentId id) {
        Entry e = entries.get(id.toString());
        return e == null ? null : e.doc();
    }

    /**
     * Stores doc (or a tombstone for id when doc is null) and returns its new timestamp. The document
     * is stored as Vespa's binary document format holds it, serialised and read back, as the content
     * node keeps what the container sends it: so tensor cells are of their cell type (a float cell
     * holds a float, a bfloat16 cell a bfloat16) in what a get, a visit or a summary reads, not the
     * doubles the JSON reader parsed.
     */
    public long write(DocumentId id, Document doc) {
        if (doc != null) doc = roundTrip(doc);
        long ts = clock.incrementAndGet();
        entries.put(id.toString(), new Entry(id, doc, ts, buckets.getBucketId(id)));
        return ts;
    }

    /** doc serialised in the binary document format and deserialised. */
    private Document roundTrip(Document doc) {
        GrowableByteBuffer buf = new GrowableByteBuffer();
        doc.serialize(DocumentSerializerFactory.createHead(buf));
        buf.flip();
        return new Document(DocumentDeserializerFactory.createHead(types, buf));
    }

    /** The entries (tombstones included) whose bucket is inside superbucket, in ID order. */
    public List<Entry> inBucket(BucketId superbucket) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries.values()) {
            if (superbucket.contains(e.bucket())) out.add(e);
        }
        return out;
    }

    /** The live documents, in ID order. */
    public List<Document> documents() {
        List<Document> out = new ArrayList<>();
        for (Entry e : entries.values()) {
            if (e.doc() != null) out.add(e.doc());
        }
        return out;
    }

    /** Forgets every document and tombstone and clears the faults. */
    public void reset() {
        entries.clear();
        locks.clear();
        faults.clear();
    }

    /** The number of live documents. */
    public int size() {
        int n = 0;
        for (Entry e : entries.values()) if (e.doc() != null) n++;
        return n;
    }
}
