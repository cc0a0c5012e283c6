package harness;

import com.yahoo.data.access.Inspector;
import com.yahoo.data.access.simple.Value;
import com.yahoo.document.Document;
import com.yahoo.document.Field;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.NumericFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.query.Sorting;
import com.yahoo.search.result.Coverage;
import com.yahoo.search.result.ErrorMessage;
import com.yahoo.search.result.Hit;
import com.yahoo.search.schema.Schema;
import com.yahoo.search.schema.SchemaInfo;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.tensor.Tensor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The harness's stand-in for the content nodes on the query path: a searcher in a local provider
 * for the content cluster that answers from the {@link Store}. Everything before it (the search
 * handler, query profiles, the YQL parser, query transforms) and after it (JsonRenderer) is
 * Vespa's; matching ({@link QueryMatcher}), ranking, sorting and summaries here are ours and only
 * cover what govespa's tests use.
 * <p>
 * The rank profile is checked against the schema as Vespa's backend checks it before dispatch
 * (container-search VespaBackend.search: "schema 'music' does not contain requested rank profile 'x'",
 * INVALID_QUERY_PARAMETER, code 4, 400), over the {@link SchemaInfo} the config model derives
 * from the application's schemas, which the container injects.
 * <p>
 * The query property {@code harness.sleep} (milliseconds) makes it sleep before answering, to
 * provoke the container's real timeout handling. The query property {@code harness.degraded}
 * (a comma-separated list of match-phase, timeout, adaptive-timeout, anntimeout, non-ideal-state)
 * makes it answer with half the documents covered and those degradation reasons, as a content
 * node's reply sets them (container-search ProtobufSerialization.convertToCoverage), so that
 * Vespa's own renderer writes root.coverage.degraded.
 */
public final class StoreSearcher extends Searcher {

    /** The longest harness.sleep the searcher honours, so that no query holds a thread for good. */
    static final long MAX_SLEEP_MILLIS = 60_000;

    private final SchemaInfo schemaInfo;

    public StoreSearcher(SchemaInfo schemaInfo) {
        this.schemaInfo = schemaInfo;
    }

    @Override
    public Result search(Query query, Execution execution) {
        Store store = Store.get();
        Schema schema = schema(query);
        if (schema != null && !schema.rankProfiles().containsKey(query.getRanking().getProfile())) {
            // As VespaBackend.search words it (Schema.toString is "schema 'music'").
            return new Result(query, ErrorMessage.createInvalidQueryParameter(schema +
                    " does not contain requested rank profile '" + query.getRanking().getProfile() + "'"));
        }
        long sleep = Math.min(MAX_SLEEP_MILLIS, query.properties().getLong("harness.sleep", 0L));
        if (sleep > 0) {
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (query.getTimeLeft() <= 0) {
                return new Result(query, ErrorMessage.createTimeout("Timed out waiting for the harness store after " + sleep + " ms"));
            }
        }
        QueryMatcher matcher;
        try {
            matcher = new QueryMatcher(store, query);
        } catch (IllegalArgumentException e) {
            return new Result(query, ErrorMessage.createIllegalQuery(e.getMessage()));
        }
        Set<String> restrict = query.getModel().getRestrict();
        List<QueryMatcher.Match> matches = new ArrayList<>();
        int searched = 0;
        for (Document doc : store.documents()) {
            String type = doc.getDataType().getName();
            if (!restrict.isEmpty() && !restrict.contains(type)) continue;
            searched++;
            QueryMatcher.Match m = matcher.match(doc);
            if (m != null) matches.add(m);
        }
        matches = matcher.limitNearestNeighbors(matches);
        matches.sort(order(query));

        Result result = new Result(query);
        result.setTotalHitCount(matches.size());
        result.setCoverage(coverage(query, searched));
        int from = Math.min(query.getOffset(), matches.size());
        int to = Math.min(from + query.getHits(), matches.size());
        Set<String> selected = query.getPresentation().getSummaryFields();
        for (QueryMatcher.Match m : matches.subList(from, to)) {
            result.hits().add(hit(store, m, selected));
        }
        return result;
    }

    /** The coverage of a query that searched searched documents, degraded as harness.degraded says. */
    private static Coverage coverage(Query query, int searched) {
        String degraded = query.properties().getString("harness.degraded", "");
        if (degraded.isEmpty()) return new Coverage(searched, searched, 1);
        int reason = 0;
        for (String r : degraded.split(",")) {
            switch (r.trim()) {
                case "match-phase" -> reason |= Coverage.DEGRADED_BY_MATCH_PHASE;
                case "timeout" -> reason |= Coverage.DEGRADED_BY_TIMEOUT;
                case "adaptive-timeout" -> reason |= Coverage.DEGRADED_BY_ADAPTIVE_TIMEOUT;
                case "anntimeout" -> reason |= Coverage.DEGRADED_BY_ANN_TIMEOUT;
                case "non-ideal-state", "" -> { } // half coverage and no other reason is a non-ideal state
                default -> throw new IllegalArgumentException("harness.degraded: unknown reason '" + r + "'");
            }
        }
        long active = Math.max(2, searched);
        Coverage c = new Coverage(active / 2, active, 1);
        c.setNodesTried(1).setTargetActive(active);
        c.setDegradedReason(reason);
        return c;
    }

    /**
     * The schema whose rank profiles the query must name, as VespaBackend.getDocumentDatabase picks it:
     * the one restrict names when it names exactly one known schema, else the first (the default).
     */
    private Schema schema(Query query) {
        Set<String> restrict = query.getModel().getRestrict();
        if (restrict.size() == 1) {
            Schema s = schemaInfo.schemas().get(restrict.iterator().next());
            if (s != null) return s;
        }
        return schemaInfo.schemas().values().stream().findFirst().orElse(null);
    }

    @Override
    public void fill(Result result, String summaryClass, Execution execution) {
        // Hits are filled when they are made.
    }

    private Hit hit(Store store, QueryMatcher.Match m, Set<String> selected) {
        Document doc = m.doc();
        String type = doc.getDataType().getName();
        Hit hit = new Hit(doc.getId().toString(), m.relevance());
        hit.setSource(store.cluster());
        Set<String> summary = store.summaryFields(type);
        boolean all = selected == null || selected.isEmpty();
        if (all) {
            hit.setField("sddocname", type);
            hit.setField("documentid", doc.getId().toString());
        }
        for (Field f : doc.getDataType().getFields()) {
            if (!summary.contains(f.getName()) || (!all && !selected.contains(f.getName()))) continue;
            FieldValue v = doc.getFieldValue(f);
            if (v != null) hit.setField(f.getName(), render(v));
        }
        hit.setFilled("default");
        return hit;
    }

    /** A field value as a docsum would hold it. */
    private static Object render(FieldValue v) {
        if (v instanceof StringFieldValue s) return s.getString();
        if (v instanceof NumericFieldValue n) return n.getNumber();
        if (v instanceof TensorFieldValue t) return t.getTensor().orElse(null);
        if (v instanceof Array<?> a) {
            Value.ArrayValue out = new Value.ArrayValue();
            for (Object e : a.getValues()) out.add(inspector((FieldValue) e));
            return out;
        }
        return v.toString();
    }

    private static Inspector inspector(FieldValue v) {
        if (v instanceof StringFieldValue s) return new Value.StringValue(s.getString());
        if (v instanceof NumericFieldValue n) {
            Number x = n.getNumber();
            return (x instanceof Double || x instanceof Float) ? new Value.DoubleValue(x.doubleValue()) : new Value.LongValue(x.longValue());
        }
        return new Value.StringValue(v.toString());
    }

    /** The query's sort order, else relevance, descending; ties by document ID. */
    private static Comparator<QueryMatcher.Match> order(Query query) {
        Sorting sorting = query.getRanking().getSorting();
        Comparator<QueryMatcher.Match> c = null;
        if (sorting != null) {
            for (Sorting.FieldOrder fo : sorting.fieldOrders()) {
                String name = fo.getFieldName();
                Comparator<QueryMatcher.Match> one = "[relevance]".equals(name) || "[rank]".equals(name)
                        ? Comparator.comparingDouble(QueryMatcher.Match::relevance)
                        : Comparator.comparing(m -> sortKey(m.doc(), name), StoreSearcher::compareKeys);
                if (fo.getSortOrder() == Sorting.Order.DESCENDING) one = one.reversed();
                c = c == null ? one : c.thenComparing(one);
            }
        }
        if (c == null) c = Comparator.comparingDouble(QueryMatcher.Match::relevance).reversed();
        return c.thenComparing(m -> m.doc().getId().toString());
    }

    private static Comparable<?> sortKey(Document doc, String field) {
        FieldValue v = doc.getDataType().getField(field) == null ? null : doc.getFieldValue(field);
        if (v instanceof NumericFieldValue n) return n.getNumber().doubleValue();
        if (v instanceof StringFieldValue s) return s.getString();
        return null;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareKeys(Comparable a, Comparable b) {
        if (a == null || b == null) return a == null ? (b == null ? 0 : 1) : -1; // missing values last
        if (a.getClass() != b.getClass()) return a.toString().compareTo(b.toString());
        return a.compareTo(b);
    }

    /** The cell values of a dense tensor, in order. */
    static double[] values(Tensor t) {
        double[] out = new double[(int) t.size()];
        int i = 0;
        for (var it = t.valueIterator(); it.hasNext() && i < out.length; ) out[i++] = it.next();
        return out;
    }
}
