package harness;

import com.yahoo.data.access.Inspector;
import com.yahoo.data.access.simple.Value;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.Field;
import com.yahoo.document.PositionDataType;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.BoolFieldValue;
import com.yahoo.document.datatypes.DoubleFieldValue;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.MapFieldValue;
import com.yahoo.document.datatypes.NumericFieldValue;
import com.yahoo.document.datatypes.PredicateFieldValue;
import com.yahoo.document.datatypes.Raw;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.Struct;
import com.yahoo.document.datatypes.StructuredFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.document.predicate.BooleanPredicate;
import com.yahoo.document.predicate.Conjunction;
import com.yahoo.document.predicate.Disjunction;
import com.yahoo.document.predicate.FeatureRange;
import com.yahoo.document.predicate.FeatureSet;
import com.yahoo.document.predicate.Negation;
import com.yahoo.document.predicate.Predicate;
import com.yahoo.document.predicate.PredicateOperator;
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

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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
        Schema schema = schema(query, store);
        if (schema != null && !schema.rankProfiles().containsKey(query.getRanking().getProfile())) {
            // As VespaBackend.search words it (Schema.toString is "schema 'music'").
            return new Result(query, ErrorMessage.createInvalidQueryParameter(schema +
                    " does not contain requested rank profile '" + query.getRanking().getProfile() + "'"));
        }
        String unranked = uncomputedRanking(query, store, schemas(query, store));
        if (unranked != null) {
            // Said, not faked: as the emulator answers what it does not implement (vespatest doc).
            return new Result(query, new ErrorMessage(501, "Not implemented", unranked));
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
            matcher = new QueryMatcher(store, query, bm25Field(query, store, schemas(query, store)));
        } catch (IllegalArgumentException e) {
            return new Result(query, ErrorMessage.createIllegalQuery(e.getMessage()));
        }
        Set<String> schemas = schemas(query, store);
        List<QueryMatcher.Match> matches = new ArrayList<>();
        int searched = 0;
        try {
            for (Document doc : store.documents()) {
                String type = doc.getDataType().getName();
                if (schemas != null && !schemas.contains(type)) continue;
                searched++;
                QueryMatcher.Match m = matcher.match(doc);
                if (m != null) matches.add(m);
            }
        } catch (QueryMatcher.NotImplemented e) {
            return new Result(query, new ErrorMessage(501, "Not implemented", e.getMessage()));
        }
        matches = matcher.limitNearestNeighbors(matches);
        Double constant = constantRanking(query, store, schemas);
        if (constant != null) matches.replaceAll(m -> new QueryMatcher.Match(m.doc(), constant, m.distance()));
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

    /**
     * Why the harness cannot rank the query as Vespa would, or null when it can: it computes
     * closeness for a nearestNeighbor query and BM25 of the matched words otherwise ({@link
     * QueryMatcher}), so a rank profile whose first phase is another expression (tensor functions,
     * attributes, query inputs) would get a relevance that only looks right. A constant first
     * phase (unranked's value(0)) is computed ({@link #constantRanking}); the default profile
     * (nativeRank) keeps the harness's relevance, which the suite never compares.
     */
    private static String uncomputedRanking(Query query, Store store, Set<String> searched) {
        String profile = query.getRanking().getProfile();
        for (String type : searchedTypes(store, searched)) {
            String expr = store.firstPhase(type, profile);
            if (expr == null || expr.isEmpty() || COMPUTED.matcher(expr).matches() || CONSTANT.matcher(expr).matches()) continue;
            if (profile.equals("default")) continue;
            return "rank profile '" + profile + "' of schema '" + type + "': the JDisc harness does not compute the first-phase expression '" +
                   expr + "' (it ranks by bm25 of the matched words, or closeness for nearestNeighbor)";
        }
        return null;
    }

    /**
     * The relevance of every hit when the rank profile's first phase is a constant, as the
     * built-in unranked profile's value(0) (config-model UnrankedRankProfile), else null.
     */
    private static Double constantRanking(Query query, Store store, Set<String> searched) {
        for (String type : searchedTypes(store, searched)) {
            String expr = store.firstPhase(type, query.getRanking().getProfile());
            var m = expr == null ? null : CONSTANT.matcher(expr);
            if (m != null && m.matches()) return Double.parseDouble(m.group(1) != null ? m.group(1) : m.group(2));
        }
        return null;
    }

    /** The field of the rank profile's bm25(field) first phase, or null when it has none. */
    private static String bm25Field(Query query, Store store, Set<String> searched) {
        for (String type : searchedTypes(store, searched)) {
            String expr = store.firstPhase(type, query.getRanking().getProfile());
            var m = expr == null ? null : BM25.matcher(expr);
            if (m != null && m.matches()) return m.group(1);
        }
        return null;
    }

    /** A first phase of one bm25 feature. */
    private static final java.util.regex.Pattern BM25 = java.util.regex.Pattern.compile("\\s*bm25\\((\\w+)\\)\\s*");

    /** The searched types, in name order: searched, or every type of the store when it is null. */
    private static Set<String> searchedTypes(Store store, Set<String> searched) {
        Set<String> types = new java.util.TreeSet<>();
        if (searched != null) types.addAll(searched);
        else for (var t : store.types().getDocumentTypes().keySet()) types.add(t.getName());
        return types;
    }

    /** A constant first phase: value(n) or a number. */
    private static final java.util.regex.Pattern CONSTANT =
            java.util.regex.Pattern.compile("\\s*(?:value\\(\\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)\\s*\\)|(-?[0-9.]+(?:[eE][-+]?[0-9]+)?))\\s*");

    /** The first-phase expressions the harness computes: one bm25 or closeness feature. */
    private static final java.util.regex.Pattern COMPUTED =
            java.util.regex.Pattern.compile("\\s*(bm25\\(\\w+\\)|closeness\\(\\s*field\\s*,\\s*\\w+\\s*\\))\\s*");

    /**
     * The document types the query searches, null for all: as container-search
     * ClusterSearcher.resolveSchemas picks them, the restrict when it is set, else the sources,
     * where a source naming the content cluster stands for all its types (resolveSourceSubset).
     */
    private static Set<String> schemas(Query query, Store store) {
        Set<String> restrict = query.getModel().getRestrict();
        if (restrict != null && !restrict.isEmpty()) return restrict;
        Set<String> sources = query.getModel().getSources();
        if (sources == null || sources.isEmpty() || sources.contains(store.cluster())) return null;
        return sources;
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
     * The schema whose rank profiles the query must name, as VespaBackend.getDocumentDatabase picks it
     * after ClusterSearcher has resolved the searched types ({@link #schemas}): the one searched
     * type when there is exactly one known schema among them, else the first (the default).
     */
    private Schema schema(Query query, Store store) {
        Set<String> searched = schemas(query, store);
        if (searched != null && searched.size() == 1) {
            Schema s = schemaInfo.schemas().get(searched.iterator().next());
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
            String attribute = store.summaryAttribute(type, f.getName());
            Object rendered = attribute != null ? fromAttribute(attribute, v) : v == null ? null : render(v);
            if (rendered != null) hit.setField(f.getName(), rendered);
        }
        hit.setFilled("default");
        return hit;
    }

    /**
     * A field value as Vespa's docsum holds it when the container renders it: what the content
     * node's SlimeFiller (searchsummary slime_filler.cpp) and attribute writers (attributedfw.cpp,
     * geoposdfw.cpp) put in the summary Slime, as an {@link Inspector}, so that Vespa's own
     * JsonRenderer turns it into JSON: integers as longs, float and double as doubles, bool as a
     * bool, a position as {"lat","lng"} in degrees, a struct as an object, an array as an array, a
     * weighted set as [{"item","weight"}] and a map as [{"key","value"}] (which the renderer writes
     * as JSON objects), raw as data (base64 in JSON), a reference as its document ID (empty when
     * unset), a predicate in the C++ PredicatePrinter's form and a newline. Tensors stay Tensors,
     * as the container decodes the docsum's tensor data into them. Empty collections are left out
     * (SlimeFiller.empty_or_empty_after_filtering).
     */
    static Object render(FieldValue v) {
        if (v instanceof TensorFieldValue t) return t.getTensor().orElse(null);
        if (v instanceof StringFieldValue s) return s.getString();
        if (undefined(v)) return null;
        return inspector(v);
    }

    /**
     * Whether a top-level value is one the docsum leaves out as undefined (searchsummary
     * check_undefined_value_visitor.cpp, before SlimeFiller.insert_summary_field): empty raw, a
     * float or double NaN (empty collections are left out by {@link #inspector}, an empty string
     * by JsonRenderer.shouldRender).
     */
    private static boolean undefined(FieldValue v) {
        if (v instanceof Raw r) return r.getByteBuffer().limit() == 0;
        if (v instanceof FloatFieldValue || v instanceof DoubleFieldValue) {
            return Double.isNaN(((NumericFieldValue) v).getNumber().doubleValue());
        }
        return false;
    }

    /**
     * A summary field read from a single-value attribute of type (an Attribute.Type name), as
     * searchsummary's SingleAttrDFW writes it: nothing when the attribute holds its undefined value
     * (isDefaultValue: the smallest value of an integer type, NaN, an empty string, which is also
     * what a document without the field leaves in it), and false for a bool attribute of a document
     * without the field (a bool attribute has no undefined value; unset, it holds 0).
     */
    static Object fromAttribute(String type, FieldValue v) {
        if (v == null) return type.equals("BOOL") ? new Value.BoolValue(false) : null;
        if (v instanceof NumericFieldValue n) {
            long x = n.getNumber().longValue();
            boolean undefined = switch (type) {
                case "BYTE" -> x == Byte.MIN_VALUE;
                case "SHORT" -> x == Short.MIN_VALUE;
                case "INTEGER" -> x == Integer.MIN_VALUE;
                case "LONG" -> x == Long.MIN_VALUE;
                default -> false;
            };
            if (undefined) return null;
        }
        return render(v);
    }

    /** The Slime SlimeFiller would write for v, or null for an empty collection or unset value. */
    static Inspector inspector(FieldValue v) {
        if (v instanceof StringFieldValue s) return new Value.StringValue(s.getString());
        if (v instanceof BoolFieldValue b) return new Value.BoolValue(b.getBoolean());
        if (v instanceof FloatFieldValue || v instanceof DoubleFieldValue) {
            return new Value.DoubleValue(((NumericFieldValue) v).getNumber().doubleValue());
        }
        if (v instanceof NumericFieldValue n) return new Value.LongValue(n.getNumber().longValue());
        if (v instanceof Raw r) {
            ByteBuffer buf = r.getByteBuffer().duplicate();
            buf.rewind();
            byte[] data = new byte[buf.remaining()];
            buf.get(data);
            return new Value.DataValue(data);
        }
        if (v instanceof ReferenceFieldValue ref) {
            return new Value.StringValue(ref.getDocumentId().map(DocumentId::toString).orElse(""));
        }
        if (v instanceof PredicateFieldValue p) {
            // SlimeFiller writes PredicateFieldValue::toString, which is print(): the printer's text and "\n"
            // (slime_filler_test.cpp insert_predicate: "'foo' in ['bar']\n").
            return p.getPredicate() == null ? null : new Value.StringValue(printPredicate(p.getPredicate()) + "\n");
        }
        if (v instanceof Struct st && st.getDataType().equals(PositionDataType.INSTANCE)) {
            FieldValue x = st.getFieldValue(PositionDataType.FIELD_X), y = st.getFieldValue(PositionDataType.FIELD_Y);
            if (x instanceof NumericFieldValue xn && y instanceof NumericFieldValue yn) {
                Value.ObjectValue o = new Value.ObjectValue();
                o.put("lat", yn.getNumber().intValue() / 1.0e6);
                o.put("lng", xn.getNumber().intValue() / 1.0e6);
                return o;
            }
        }
        if (v instanceof StructuredFieldValue st) {
            Value.ObjectValue o = new Value.ObjectValue();
            for (Iterator<Map.Entry<Field, FieldValue>> it = st.iterator(); it.hasNext(); ) {
                Map.Entry<Field, FieldValue> e = it.next();
                Inspector sub = inspector(e.getValue());
                if (sub != null) o.put(e.getKey().getName(), sub);
            }
            return o;
        }
        if (v instanceof WeightedSet<?> ws) {
            if (ws.isEmpty()) return null;
            Value.ArrayValue a = new Value.ArrayValue();
            for (Map.Entry<? extends FieldValue, Integer> e : ws.entrySet()) {
                Value.ObjectValue o = new Value.ObjectValue();
                o.put("item", inspector(e.getKey()));
                o.put("weight", new Value.LongValue(e.getValue()));
                a.add(o);
            }
            return a;
        }
        if (v instanceof MapFieldValue<?, ?> m) {
            if (m.isEmpty()) return null;
            Value.ArrayValue a = new Value.ArrayValue();
            for (Map.Entry<? extends FieldValue, ? extends FieldValue> e : m.entrySet()) {
                Value.ObjectValue o = new Value.ObjectValue();
                o.put("key", inspector(e.getKey()));
                // An empty value inserts nothing, so the entry has no "value" (MapFieldValueInserter).
                Inspector value = inspector(e.getValue());
                if (value != null) o.put("value", value);
                a.add(o);
            }
            return a;
        }
        if (v instanceof Array<?> arr) {
            if (arr.isEmpty()) return null;
            Value.ArrayValue a = new Value.ArrayValue();
            for (Object e : arr.getValues()) {
                Inspector sub = inspector((FieldValue) e);
                if (sub != null) a.add(sub);
            }
            return a;
        }
        throw new IllegalArgumentException("harness: no docsum rendering of " + v.getDataType().getName() + " values");
    }

    /**
     * A predicate as the content node prints it into a docsum: document's C++ PredicatePrinter
     * (predicate_printer.cpp) over the predicate's Slime, which quotes every key and value in
     * single quotes, puts each conjunction and disjunction in parentheses and writes a negated
     * feature as "'k' not in [...]".
     */
    static String printPredicate(Predicate p) {
        StringBuilder out = new StringBuilder();
        printPredicate(p, false, out);
        return out.toString();
    }

    private static void printPredicate(Predicate p, boolean negated, StringBuilder out) {
        if (p instanceof FeatureSet fs) {
            quote(fs.getKey(), out);
            out.append(negated ? " not in [" : " in [");
            boolean first = true;
            for (String value : fs.getValues()) {
                if (!first) out.append(',');
                first = false;
                quote(value, out);
            }
            out.append(']');
        } else if (p instanceof FeatureRange fr) {
            quote(fr.getKey(), out);
            out.append(negated ? " not in [" : " in [");
            if (fr.getFromInclusive() != null) out.append(fr.getFromInclusive());
            out.append("..");
            if (fr.getToInclusive() != null) out.append(fr.getToInclusive());
            out.append(']');
        } else if (p instanceof Negation n) {
            printPredicate(n.getOperand(), !negated, out);
        } else if (p instanceof Conjunction || p instanceof Disjunction) {
            if (negated) out.append("not ");
            out.append('(');
            List<Predicate> ops = ((PredicateOperator) p).getOperands();
            for (int i = 0; i < ops.size(); i++) {
                if (i > 0) out.append(p instanceof Conjunction ? " and " : " or ");
                printPredicate(ops.get(i), false, out);
            }
            out.append(')');
        } else if (p instanceof BooleanPredicate b) {
            // PredicatePrinter.visitTrue/visitFalse ignore negation, as here.
            out.append(b.getValue() ? "true" : "false");
        } else {
            throw new IllegalArgumentException("harness: cannot print predicate node " + p.getClass().getSimpleName());
        }
    }

    /** A quoted string as vespalib StringUtil::escape(s, '\'') writes it. */
    private static void quote(String s, StringBuilder out) {
        out.append('\'');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\'' -> out.append("\\'");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) out.append(String.format("\\x%02X", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('\'');
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
