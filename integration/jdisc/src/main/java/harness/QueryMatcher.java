package harness;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentType;
import com.yahoo.document.Field;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.NumericFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.prelude.query.CompositeItem;
import com.yahoo.prelude.query.EquivItem;
import com.yahoo.prelude.query.FalseItem;
import com.yahoo.prelude.query.FuzzyItem;
import com.yahoo.prelude.query.GeoLocationItem;
import com.yahoo.prelude.query.IntItem;
import com.yahoo.prelude.query.NumericInItem;
import com.yahoo.prelude.query.StringInItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.Limit;
import com.yahoo.prelude.query.NearItem;
import com.yahoo.prelude.query.NearestNeighborItem;
import com.yahoo.prelude.query.NotItem;
import com.yahoo.prelude.query.NullItem;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.PhraseItem;
import com.yahoo.prelude.query.PhraseSegmentItem;
import com.yahoo.prelude.query.PrefixItem;
import com.yahoo.prelude.query.RankItem;
import com.yahoo.prelude.query.RegExpItem;
import com.yahoo.prelude.query.SameElementItem;
import com.yahoo.prelude.query.SubstringItem;
import com.yahoo.prelude.query.SuffixItem;
import com.yahoo.prelude.query.TermItem;
import com.yahoo.prelude.query.TrueItem;
import com.yahoo.prelude.query.WeakAndItem;
import com.yahoo.prelude.query.WordAlternativesItem;
import com.yahoo.search.Query;
import com.yahoo.tensor.Tensor;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Evaluates a parsed query tree against stored documents. This is the harness's own matching, not
 * Vespa's: string fields match by lower-cased tokens (single values) or whole values (array
 * elements), without stemming or normalisation; numbers by IntItem limits; nearestNeighbor is
 * exact, by angular distance, over the documents the rest of the tree matches. Relevance is
 * closeness (1/(1+distance)) when the query has a nearestNeighbor item, else BM25 of the matched
 * words (of the rank profile's bm25(field) alone, when it has one) over the harness's documents.
 */
final class QueryMatcher {

    record Match(Document doc, double relevance, double distance) {}

    private record Term(String field, String word) {}

    private final Store store;
    private final Query query;
    private final Item root;
    private NearestNeighborItem nn;
    private double[] nnQuery;
    private final List<Term> terms = new ArrayList<>();
    private final Map<Term, Integer> documentFrequency = new HashMap<>();
    private final Map<String, Double> averageLength = new HashMap<>();
    private int documents;

    /**
     * A matcher of query; bm25Field, when not null, is the one field whose words BM25 sums (a rank
     * profile's bm25(field) is that field's score alone), else the words of every field count.
     */
    QueryMatcher(Store store, Query query, String bm25Field) {
        this.store = store;
        this.query = query;
        this.root = query.getModel().getQueryTree().getRoot();
        collect(root, true);
        if (bm25Field != null) terms.removeIf(t -> !t.field().equals(bm25Field));
        if (nn != null) {
            String name = "query(" + nn.getQueryTensorName() + ")";
            // A tensor when the container has typed the input. In this container the provider's query
            // copy holds the untyped input as the rank property named like the tensor ("q"), so that
            // is read when there is no feature.
            Object value = query.getRanking().getFeatures().getObject(name);
            for (String key : List.of(name, nn.getQueryTensorName())) {
                if (value != null) break;
                List<?> ranked = query.getRanking().getProperties().get(key);
                if (ranked != null && !ranked.isEmpty()) value = ranked.get(0);
            }
            if (value == null) throw new IllegalArgumentException("harness: nearestNeighbor needs the query tensor " + name);
            nnQuery = value instanceof Tensor t ? StoreSearcher.values(t) : numbers(value.toString());
        }
        if (!terms.isEmpty() && nn == null) statistics(); // with nearestNeighbor, relevance is closeness only
    }

    /** Records the nearestNeighbor item and the positive words of the tree. */
    private void collect(Item item, boolean positive) {
        if (item instanceof NearestNeighborItem n) {
            if (nn != null) throw new IllegalArgumentException("harness: only one nearestNeighbor item per query is supported");
            nn = n;
        } else if (item instanceof NotItem not) {
            for (int i = 0; i < not.getItemCount(); i++) collect(not.getItem(i), positive && i == 0);
        } else if (item instanceof CompositeItem c) {
            for (int i = 0; i < c.getItemCount(); i++) collect(c.getItem(i), positive);
        } else if (item instanceof TermItem t && positive && !(item instanceof IntItem)) {
            for (String f : fields(t.getIndexName())) terms.add(new Term(f, t.getIndexedString().toLowerCase(Locale.ROOT)));
        }
    }

    /** Document frequencies and average field lengths for BM25. */
    private void statistics() {
        Map<String, Long> lengths = new HashMap<>();
        for (Document doc : store.documents()) {
            documents++;
            for (Term t : terms) {
                List<String> tokens = tokens(doc, t.field());
                if (tokens.contains(t.word())) documentFrequency.merge(t, 1, Integer::sum);
            }
            for (String f : terms.stream().map(Term::field).distinct().toList()) lengths.merge(f, (long) tokens(doc, f).size(), Long::sum);
        }
        lengths.forEach((f, n) -> averageLength.put(f, documents == 0 ? 1 : Math.max(1, (double) n / documents)));
    }

    /** The match of doc, or null. */
    Match match(Document doc) {
        if (!matches(root, doc)) return null;
        if (nn != null) {
            double d = angularDistance(doc);
            if (Double.isNaN(d)) return null;
            return new Match(doc, 1 / (1 + d), d);
        }
        return new Match(doc, bm25(doc), 0);
    }

    /** With a nearestNeighbor item: the targetHits nearest of matches. */
    List<Match> limitNearestNeighbors(List<Match> matches) {
        if (nn == null) return matches;
        List<Match> sorted = new ArrayList<>(matches);
        sorted.sort(Comparator.comparingDouble(Match::distance).thenComparing(m -> m.doc().getId().toString()));
        return new ArrayList<>(sorted.subList(0, Math.min(nn.getTargetNumHits(), sorted.size())));
    }

    private boolean matches(Item item, Document doc) {
        if (item == null || item instanceof NullItem) return false;
        if (item instanceof TrueItem) return true;
        if (item instanceof FalseItem) return false;
        if (item instanceof NearestNeighborItem) return true;
        if (item instanceof NotItem not) {
            if (not.getItemCount() == 0 || (not.getPositiveItem() != null && !matches(not.getPositiveItem(), doc))) return false;
            for (int i = 1; i < not.getItemCount(); i++) if (matches(not.getItem(i), doc)) return false;
            return true;
        }
        if (item instanceof RankItem rank) return rank.getItemCount() > 0 && matches(rank.getItem(0), doc);
        if (item instanceof PhraseItem || item instanceof PhraseSegmentItem) return phrase((CompositeItem) item, doc);
        if (item instanceof OrItem || item instanceof WeakAndItem || item instanceof EquivItem) {
            CompositeItem c = (CompositeItem) item;
            for (int i = 0; i < c.getItemCount(); i++) if (matches(c.getItem(i), doc)) return true;
            return false;
        }
        if (item instanceof WordAlternativesItem alt) {
            for (var a : alt.getAlternatives()) if (term(alt.getIndexName(), a.word.toLowerCase(Locale.ROOT), doc, "word")) return true;
            return false;
        }
        if (item instanceof NearItem || item instanceof SameElementItem) {
            // Not an AND: near and onear bound the words' distance (and order), sameElement puts the
            // conditions on one element; the harness's matching keeps no positions or elements.
            throw new NotImplemented("harness: the harness's store cannot evaluate " + item.getItemType() + " items");
        }
        if (item instanceof CompositeItem c) { // AND and its segment forms
            for (int i = 0; i < c.getItemCount(); i++) if (!matches(c.getItem(i), doc)) return false;
            return true;
        }
        if (item instanceof IntItem i) return numeric(i, doc);
        if (item instanceof NumericInItem in) return numericIn(in, doc);
        if (item instanceof StringInItem in) {
            for (String token : in.getTokens()) if (term(in.getIndexName(), token.toLowerCase(Locale.ROOT), doc, "word")) return true;
            return false;
        }
        if (item instanceof RegExpItem re) return regexp(re, doc);
        if (item instanceof GeoLocationItem || item instanceof FuzzyItem) {
            throw new NotImplemented("harness: the harness's store cannot evaluate " + item.getItemType() + " items");
        }
        if (item instanceof PrefixItem p) return term(p.getIndexName(), p.getIndexedString().toLowerCase(Locale.ROOT), doc, "prefix");
        if (item instanceof SubstringItem s) return term(s.getIndexName(), s.getIndexedString().toLowerCase(Locale.ROOT), doc, "substring");
        if (item instanceof SuffixItem s) return term(s.getIndexName(), s.getIndexedString().toLowerCase(Locale.ROOT), doc, "suffix");
        if (item instanceof TermItem t) return term(t.getIndexName(), t.getIndexedString().toLowerCase(Locale.ROOT), doc, "word");
        throw new NotImplemented("harness: the harness's store cannot evaluate " + item.getItemType() + " items");
    }

    /**
     * A query item the harness's own matching does not evaluate: answered 501, as the emulator
     * answers what it does not implement, never as a 400 Vespa would not give.
     */
    static final class NotImplemented extends RuntimeException {
        NotImplemented(String message) { super(message); }
    }

    /** The fields an index name stands for: a field, or a fieldset ("default" when empty). */
    private List<String> fields(String index) {
        if (index == null || index.isEmpty()) index = "default";
        List<String> out = new ArrayList<>();
        for (DocumentType type : store.types().getDocumentTypes().values()) {
            if (type.getField(index) != null) {
                if (!out.contains(index)) out.add(index);
                continue;
            }
            var set = type.fieldSet(index);
            if (set != null) for (Field f : set) if (!out.contains(f.getName())) out.add(f.getName());
        }
        return out;
    }

    private boolean term(String index, String word, Document doc, String how) {
        for (String field : fields(index)) {
            FieldValue v = doc.getDataType().getField(field) == null ? null : doc.getFieldValue(field);
            if (v == null) continue;
            if (v instanceof StringFieldValue s) {
                for (String t : tokenize(s.getString())) if (termMatches(t, word, how)) return true;
            } else if (v instanceof Array<?> a) {
                for (Object e : a.getValues()) if (e instanceof FieldValue fv && termMatches(value(fv), word, how)) return true;
            } else if (v instanceof WeightedSet<?> ws) {
                for (Object e : ws.keySet()) if (e instanceof FieldValue fv && termMatches(value(fv), word, how)) return true;
            } else if (termMatches(value(v), word, how)) {
                return true;
            }
        }
        return false;
    }

    /**
     * field matches "re": a value (an element, a weighted set's key) in which the regexp is found,
     * ignoring case, as searchlib's StringSearchHelper compiles it for an uncased attribute (the
     * default) and matches it (partial_match).
     */
    private boolean regexp(RegExpItem item, Document doc) {
        Pattern re = Pattern.compile(item.getRegexp().pattern(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
        for (String field : fields(item.getIndexName())) {
            FieldValue v = doc.getDataType().getField(field) == null ? null : doc.getFieldValue(field);
            List<FieldValue> values = new ArrayList<>();
            if (v instanceof Array<?> a) for (Object e : a.getValues()) values.add((FieldValue) e);
            else if (v instanceof WeightedSet<?> ws) for (Object e : ws.keySet()) values.add((FieldValue) e);
            else if (v != null) values.add(v);
            for (FieldValue x : values) {
                String text = x instanceof StringFieldValue str ? str.getString() : value(x);
                if (re.matcher(text).find()) return true;
            }
        }
        return false;
    }

    private static String value(FieldValue v) {
        if (v instanceof StringFieldValue s) return s.getString().toLowerCase(Locale.ROOT);
        if (v instanceof NumericFieldValue n) return n.getNumber().toString();
        return v.toString().toLowerCase(Locale.ROOT);
    }

    private static boolean termMatches(String value, String word, String how) {
        return switch (how) {
            case "prefix" -> value.startsWith(word);
            case "substring" -> value.contains(word);
            case "suffix" -> value.endsWith(word);
            default -> value.equals(word);
        };
    }

    private boolean phrase(CompositeItem phrase, Document doc) {
        List<String> words = new ArrayList<>();
        String index = null;
        for (int i = 0; i < phrase.getItemCount(); i++) {
            if (!(phrase.getItem(i) instanceof TermItem t)) return matches(phrase.getItem(i), doc);
            words.add(t.getIndexedString().toLowerCase(Locale.ROOT));
            index = t.getIndexName();
        }
        for (String field : fields(index)) {
            List<String> tokens = tokens(doc, field);
            for (int at = 0; at + words.size() <= tokens.size(); at++) {
                if (tokens.subList(at, at + words.size()).equals(words)) return true;
            }
        }
        return false;
    }

    private boolean numeric(IntItem item, Document doc) {
        for (Number x : numbers(item.getIndexName(), doc)) if (within(x, item.getFromLimit(), item.getToLimit())) return true;
        return false;
    }

    /** field in (n1, n2, ...): any element (an array's, a weighted set's key) equal to a token. */
    private boolean numericIn(NumericInItem item, Document doc) {
        for (Number x : numbers(item.getIndexName(), doc)) if (item.getTokens().contains(x.longValue()) && x.doubleValue() == x.longValue()) return true;
        return false;
    }

    /**
     * The numbers a numeric term on index compares with: each field's value, an array's elements,
     * a weighted set's keys (a multi-value attribute matches any element).
     */
    private List<Number> numbers(String index, Document doc) {
        List<Number> values = new ArrayList<>();
        for (String field : fields(index)) {
            FieldValue v = doc.getDataType().getField(field) == null ? null : doc.getFieldValue(field);
            if (v instanceof NumericFieldValue n) values.add(n.getNumber());
            if (v instanceof Array<?> a) for (Object e : a.getValues()) if (e instanceof NumericFieldValue n) values.add(n.getNumber());
            if (v instanceof WeightedSet<?> ws) for (Object e : ws.keySet()) if (e instanceof NumericFieldValue n) values.add(n.getNumber());
        }
        return values;
    }

    private static boolean within(Number x, Limit from, Limit to) {
        return holds(x, from, true) && holds(x, to, false);
    }

    /**
     * Whether x is above (low) or below the limit, inclusively or not as the limit says: as longs
     * when both are integers (a long attribute compares exactly, so 9007199254740993 is not
     * 9007199254740992, which one double holds), else as doubles.
     */
    private static boolean holds(Number x, Limit limit, boolean low) {
        Number n = limit.number();
        if (integral(x) && integral(n)) {
            int c = Long.compare(x.longValue(), n.longValue());
            return low ? (limit.isInclusive() ? c >= 0 : c > 0) : (limit.isInclusive() ? c <= 0 : c < 0);
        }
        double a = x.doubleValue(), b = n.doubleValue();
        return low ? (limit.isInclusive() ? a >= b : a > b) : (limit.isInclusive() ? a <= b : a < b);
    }

    private static boolean integral(Number n) {
        return n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte;
    }

    private double bm25(Document doc) {
        final double k1 = 1.2, b = 0.75;
        double score = 0;
        for (Term t : terms) {
            List<String> tokens = tokens(doc, t.field());
            long tf = tokens.stream().filter(t.word()::equals).count();
            if (tf == 0) continue;
            int n = documentFrequency.getOrDefault(t, 0);
            double idf = Math.log(1 + (documents - n + 0.5) / (n + 0.5));
            double norm = tf + k1 * (1 - b + b * tokens.size() / averageLength.getOrDefault(t.field(), 1.0));
            score += idf * tf * (k1 + 1) / norm;
        }
        return score;
    }

    private double angularDistance(Document doc) {
        String field = nn.getIndexName();
        FieldValue v = doc.getDataType().getField(field) == null ? null : doc.getFieldValue(field);
        if (!(v instanceof TensorFieldValue tv) || tv.getTensor().isEmpty()) return Double.NaN;
        double[] a = StoreSearcher.values(tv.getTensor().get()), q = nnQuery;
        if (a.length != q.length) return Double.NaN;
        double dot = 0, na = 0, nq = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * q[i];
            na += a[i] * a[i];
            nq += q[i] * q[i];
        }
        if (na == 0 || nq == 0) return Double.NaN;
        return Math.acos(Math.max(-1, Math.min(1, dot / Math.sqrt(na * nq))));
    }

    /** The numbers of a tensor's text form ("[1,2,3]" or "{{x:0}:1,...}" cell values in order). */
    static double[] numbers(String text) {
        if (text.startsWith("tensor")) text = text.substring(text.indexOf("):") + 2);
        String cells = text.contains(":") ? text.replaceAll("\\{[^{}]*\\}\\s*:", "") : text;
        List<Double> out = new ArrayList<>();
        for (String p : cells.split("[^0-9eE+.\\-]+")) if (!p.isEmpty()) out.add(Double.parseDouble(p));
        double[] a = new double[out.size()];
        for (int i = 0; i < a.length; i++) a[i] = out.get(i);
        return a;
    }

    private static List<String> tokens(Document doc, String field) {
        FieldValue v = doc.getDataType().getField(field) == null ? null : doc.getFieldValue(field);
        return v instanceof StringFieldValue s ? tokenize(s.getString()) : List.of();
    }

    private static List<String> tokenize(String s) {
        List<String> out = new ArrayList<>();
        for (String t : s.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) if (!t.isEmpty()) out.add(t);
        return out;
    }
}
