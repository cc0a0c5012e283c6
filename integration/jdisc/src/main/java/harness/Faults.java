package harness;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * Faults the control endpoint arms: the next {@code count} operations of a kind (put, update,
 * remove, get, visit or any) fail in one way, each through the path the real storage layer would
 * take, so that DocumentV1ApiHandler itself turns them into statuses:
 * <ul>
 *   <li>{@code transient}: the session refuses the operation with TRANSIENT_ERROR, so the handler
 *       queues it and resends it (its real 429 queue: 429 once the queue's max age passes);</li>
 *   <li>{@code overload}: the reply's outcome is OVERLOAD (429 at once);</li>
 *   <li>{@code timeout}: the reply's outcome is TIMEOUT (504);</li>
 *   <li>{@code storage}: the reply's outcome is INSUFFICIENT_STORAGE (507);</li>
 *   <li>{@code error}: the reply's outcome is ERROR (500).</li>
 * </ul>
 * A visit fault fails the next CreateVisitor of the fake distributor instead.
 */
public final class Faults {

    public enum Kind { TRANSIENT, OVERLOAD, TIMEOUT, STORAGE, ERROR }

    private record Armed(String op, Kind kind, int[] left, String message) {}

    private final List<Armed> armed = new ArrayList<>();

    /** Arms count faults of kind for op ("put", "update", "remove", "get", "visit" or "any"). */
    public synchronized void arm(String op, String kind, int count, String message) {
        op = op.toLowerCase(Locale.ROOT);
        if (!List.of("put", "update", "remove", "get", "visit", "any").contains(op))
            throw new IllegalArgumentException("unknown operation '" + op + "': want put, update, remove, get, visit or any");
        Kind k;
        try {
            k = Kind.valueOf(kind.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown fault '" + kind + "': want transient, overload, timeout, storage or error");
        }
        if (count <= 0) throw new IllegalArgumentException("count must be positive, not " + count);
        armed.add(new Armed(op, k, new int[]{count}, message));
    }

    /** The fault the next op takes, consuming it, or null. */
    public synchronized Fault take(String op) {
        for (Iterator<Armed> it = armed.iterator(); it.hasNext(); ) {
            Armed a = it.next();
            if (!a.op().equals(op) && !(a.op().equals("any") && !op.equals("visit"))) continue;
            if (--a.left()[0] == 0) it.remove();
            return new Fault(a.kind(), a.message() == null || a.message().isEmpty() ? defaultMessage(a.kind()) : a.message());
        }
        return null;
    }

    public synchronized void clear() { armed.clear(); }

    public record Fault(Kind kind, String message) {}

    private static String defaultMessage(Kind k) {
        return switch (k) {
            case TRANSIENT -> "harness: transient failure";
            case OVERLOAD -> "harness: overloaded";
            case TIMEOUT -> "harness: timed out";
            case STORAGE -> "harness: insufficient storage";
            case ERROR -> "harness: internal error";
        };
    }
}
