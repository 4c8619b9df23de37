package io.jdat.transport;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import java.util.Locale;

/**
 * The words of a registry entry's IA parameters (dat.conf field 7) as the built-in transports read them:
 * white-space separated, {@code key=value} or a bare word, every bad one a {@link DatException} of type
 * {@code DAT_INVALID_PARAMETER} whose message names the transport and the word. The parse itself
 * ({@code ShmConfig}, {@code TcpConfig}, {@code VerbsConfig}) stays with each transport: its keys are its own.
 *
 * @param transport the provider's name in messages ({@code "shm"}, {@code "tcp"}, {@code "verbs"})
 * @param usage     the words it takes, for the message of a word not understood
 */
public record IaParameters(String transport, String usage) {
    /** The words of {@code params}; none for {@code null} or blank. */
    public static String[] words(String params) {
        String s = params == null ? "" : params.trim();
        return s.isEmpty() ? new String[0] : s.split("\\s+");
    }

    /** The key of {@code key=value} in lower case, or {@code null} for a word without {@code '='}. */
    public static String key(String word) {
        int eq = word.indexOf('=');
        return eq < 0 ? null : word.substring(0, eq).toLowerCase(Locale.ROOT);
    }

    /** The value of {@code key=value} as written. */
    public static String value(String word) {
        return word.substring(word.indexOf('=') + 1);
    }

    /**
     * The integer {@code v} of {@code word}, in {@code [lo, hi]}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} when it is not an integer in range
     */
    public int range(String v, int lo, int hi, String word) {
        try {
            int n = Integer.parseInt(v);
            if (n >= lo && n <= hi) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw invalid(transport + " IA parameter " + word + ": expected " + lo + ".." + hi);
    }

    /**
     * A switch: {@code on 1 true yes} or {@code off 0 false no} (lower case).
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} for anything else
     */
    public boolean onOff(String v, String word) {
        return switch (v) {
            case "on", "1", "true", "yes" -> true;
            case "off", "0", "false", "no" -> false;
            default -> throw notUnderstood(word);
        };
    }

    /** A word this transport does not take: the message lists the words it does. */
    public DatException notUnderstood(String word) {
        return invalid(transport + " IA parameter not understood: " + word + " (" + usage + ")");
    }

    /** {@code DAT_INVALID_PARAMETER} with {@code message}. */
    public static DatException invalid(String message) {
        return new DatException(DatReturnType.INVALID_PARAMETER, message);
    }
}
