package io.jdat.tools.info;

import io.jdat.CompletionFlags;
import io.jdat.NamedAttr;
import io.jdat.Qos;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Prints every component of an attribute record ({@link io.jdat.IaAttr}, {@link io.jdat.ProviderAttr}) as
 * {@code name: value}, one per line, with the C field names ({@code max_rdma_size}) and readable values
 * (flag names for bit masks, hexadecimal addresses, attribute lists, the EVD stream-merging matrix).
 */
final class AttrPrinter {
    private static final String[] STREAMS = {"software", "cr", "dto", "connection", "rmr_bind", "async"};

    private AttrPrinter() {
    }

    /**
     * Prints all components of {@code attrs}.
     *
     * @param out    where to print
     * @param indent the prefix of every line
     * @param attrs  a record
     */
    static void print(PrintWriter out, String indent, Record attrs) {
        for (RecordComponent c : attrs.getClass().getRecordComponents()) {
            Object v;
            try {
                v = c.getAccessor().invoke(attrs);
            } catch (IllegalAccessException | InvocationTargetException e) {
                v = "? (" + e + ")";
            }
            String name = snake(c.getName());
            if (v instanceof boolean[][] matrix) {
                printMatrix(out, indent, name, matrix);
            } else {
                out.println(indent + name + ": " + format(c.getName(), v));
            }
        }
    }

    /** {@code maxRdmaReadPerEpIn} → {@code max_rdma_read_per_ep_in}. */
    static String snake(String camel) {
        StringBuilder sb = new StringBuilder();
        for (char ch : camel.toCharArray()) {
            if (Character.isUpperCase(ch)) {
                sb.append('_').append(Character.toLowerCase(ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }

    private static String format(String name, Object v) {
        if (v instanceof Integer i) {
            return switch (name) {
                case "lmrMemTypesSupported" -> mask(i, "VIRTUAL", "LMR", "SHARED_VIRTUAL");
                case "completionFlagsSupported" -> flags(i, new int[] {CompletionFlags.SUPPRESS,
                    CompletionFlags.SOLICITED_WAIT, CompletionFlags.UNSIGNALLED, CompletionFlags.BARRIER_FENCE,
                    CompletionFlags.EVD_THRESHOLD}, "SUPPRESS", "SOLICITED_WAIT", "UNSIGNALLED", "BARRIER_FENCE",
                    "EVD_THRESHOLD");
                case "datQosSupported" -> flags(i, new int[] {Qos.HIGH_THROUGHPUT, Qos.LOW_LATENCY, Qos.ECONOMY,
                    Qos.PREMIUM}, "HIGH_THROUGHPUT", "LOW_LATENCY", "ECONOMY", "PREMIUM");
                default -> i.toString();
            };
        }
        if (v instanceof Long l && name.endsWith("Address")) {
            return "0x" + Long.toHexString(l);
        }
        if (v instanceof String s) {
            return "\"" + s + "\"";
        }
        if (v instanceof List<?> list) {
            if (list.isEmpty()) {
                return "(none)";
            }
            StringJoiner j = new StringJoiner(", ");
            for (Object o : list) {
                j.add(o instanceof NamedAttr a ? a.name() + "=" + a.value() : String.valueOf(o));
            }
            return j.toString();
        }
        return String.valueOf(v);
    }

    /** A mask whose bit {@code n} stands for {@code names[n]}. */
    private static String mask(int value, String... names) {
        List<String> set = new ArrayList<>();
        for (int n = 0; n < names.length; n++) {
            if ((value & (1 << n)) != 0) {
                set.add(names[n]);
            }
        }
        return hex(value, set);
    }

    private static String flags(int value, int[] bits, String... names) {
        List<String> set = new ArrayList<>();
        for (int n = 0; n < bits.length; n++) {
            if ((value & bits[n]) != 0) {
                set.add(names[n]);
            }
        }
        return hex(value, set);
    }

    private static String hex(int value, List<String> set) {
        return "0x" + Integer.toHexString(value) + (set.isEmpty() ? "" : " (" + String.join("|", set) + ")");
    }

    private static void printMatrix(PrintWriter out, String indent, String name, boolean[][] m) {
        boolean all = true;
        for (boolean[] row : m) {
            for (boolean b : row) {
                all &= b;
            }
        }
        if (all) {
            out.println(indent + name + ": every pair of " + String.join(", ", STREAMS));
            return;
        }
        out.println(indent + name + ":");
        for (int r = 0; r < m.length; r++) {
            StringJoiner j = new StringJoiner(" ");
            for (int c = 0; c < m[r].length; c++) {
                if (m[r][c]) {
                    j.add(c < STREAMS.length ? STREAMS[c] : Integer.toString(c));
                }
            }
            String row = r < STREAMS.length ? STREAMS[r] : Integer.toString(r);
            out.println(String.format(Locale.ROOT, "%s    %-10s with: %s", indent, row, j.length() == 0 ? "-" : j));
        }
    }
}
