package io.jdat.core;

import io.jdat.RegistryEntry;

import io.jdat.Dat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Parser of the static registry file {@code dat.conf} (API.md §9; CONFORMANCE CFG-01..03).
 *
 * <p>Syntax, line by line (a line ends at LF, CR or CRLF):
 * <ul>
 *   <li>{@code #} outside double quotes starts a comment that runs to the end of the line, also in
 *       the middle of a field ({@code a#b} is the field {@code a}); blank and comment-only lines are
 *       ignored.</li>
 *   <li>A provider line has exactly <b>eight</b> fields separated by blanks (space, tab, VT, FF).
 *       A field written in double quotes may contain blanks and {@code #}; inside quotes a backslash
 *       takes the next character literally ({@code \"}, {@code \\}); {@code ""} is an empty field.
 *       Outside quotes a backslash is an ordinary character. A quote may not start in the middle of
 *       an unquoted field and a closing quote must be followed by a blank, a comment or the end of
 *       the line.</li>
 *   <li>Fields: IA name (1 to 255 UTF-8 bytes, like the C {@code char[DAT_NAME_MAX_LENGTH]} with
 *       its NUL); API version {@code u|k<major>.<minor>}; {@code threadsafe|nonthreadsafe};
 *       {@code default|nondefault}; library; provider version {@code <id>.<major>.<minor>}, split at
 *       the last two dots, {@code id} non-empty; IA params; platform params. Version numbers are
 *       unsigned 32-bit decimal integers (ASCII digits only); keywords are case-sensitive. No field
 *       may contain a NUL character.</li>
 * </ul>
 *
 * <p>As in the reference implementation, a malformed line is skipped and parsing goes on with the
 * next line; only {@code u} lines marked {@code default} are registered; among those, the first
 * line of an IA name wins. Every line that is not registered gets a {@code "line N: reason"}
 * entry in {@link Result#warnings()} (at most {@value #MAX_WARNINGS}, then a single summary line).
 * A UTF-8 byte order mark at the start of the text is ignored; bytes that are not UTF-8 become
 * U+FFFD and are then ordinary field characters.
 */
public final class DatConfParser {
    /** Warnings kept per parse; further ones are counted in one closing summary warning. */
    public static final int MAX_WARNINGS = 1000;
    /** Largest file {@link #parse(Path)} reads, in bytes. */
    public static final int MAX_FILE_BYTES = 16 * 1024 * 1024;

    private static final int FIELDS = 8;
    private static final int SNIPPET = 40;

    /**
     * The outcome of one parse.
     *
     * @param entries    the entries to register, in file order: well-formed {@code u} +
     *                   {@code default} lines, first line per IA name only
     * @param wellFormed every well-formed provider line in file order, registered or not
     * @param warnings   {@code "line N: reason"} for each skipped line (malformed, not
     *                   {@code u}/{@code default}, duplicate name)
     */
    public record Result(List<RegistryEntry> entries, List<RegistryEntry> wellFormed, List<String> warnings) {
        /** Copies the lists into unmodifiable ones. */
        public Result {
            entries = List.copyOf(entries);
            wellFormed = List.copyOf(wellFormed);
            warnings = List.copyOf(warnings);
        }
    }

    private DatConfParser() {
    }

    /**
     * Reads and parses a {@code dat.conf} file (decoded as UTF-8).
     *
     * @throws IOException if the file cannot be read (missing, a directory, no permission) or is
     *                     larger than {@value #MAX_FILE_BYTES} bytes
     */
    public static Result parse(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_FILE_BYTES + 1);
        }
        if (bytes.length > MAX_FILE_BYTES) {
            throw new IOException(file + ": larger than " + MAX_FILE_BYTES + " bytes, not a dat.conf");
        }
        return parse(new String(bytes, StandardCharsets.UTF_8));
    }

    /** Parses {@code dat.conf} text. Never throws for any content. */
    public static Result parse(String text) {
        Objects.requireNonNull(text, "text");
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        List<RegistryEntry> entries = new ArrayList<>();
        List<RegistryEntry> wellFormed = new ArrayList<>();
        Warnings warnings = new Warnings();
        Map<String, Integer> firstLine = new HashMap<>();
        int lineNo = 0;
        for (String line : (Iterable<String>) text.lines()::iterator) {
            lineNo++;
            List<String> fields = new ArrayList<>(FIELDS);
            String error = tokenize(line, fields);
            if (error != null) {
                warnings.add(lineNo, error);
                continue;
            }
            if (fields.isEmpty()) {
                continue; // blank or comment-only
            }
            if (fields.size() != FIELDS) {
                warnings.add(lineNo, "expected 8 fields, found " + fields.size());
                continue;
            }
            Object parsed = toEntry(fields);
            if (parsed instanceof String reason) {
                warnings.add(lineNo, reason);
                continue;
            }
            RegistryEntry entry = (RegistryEntry) parsed;
            wellFormed.add(entry);
            if (entry.apiKind() != 'u' || !entry.isDefault()) {
                warnings.add(lineNo, "IA name " + snippet(entry.iaName()) + " not registered: only 'u' "
                        + "entries marked 'default' are loaded");
                continue;
            }
            Integer first = firstLine.putIfAbsent(entry.iaName(), lineNo);
            if (first != null) {
                warnings.add(lineNo, "IA name " + snippet(entry.iaName()) + " already defined on line "
                        + first + ", ignored");
                continue;
            }
            entries.add(entry);
        }
        return new Result(entries, wellFormed, warnings.finish());
    }

    /**
     * Whether {@code name} is acceptable as an IA name: non-null, non-empty, shorter than
     * {@link Dat#NAME_MAX_LENGTH} ({@value Dat#NAME_MAX_LENGTH}) UTF-8 bytes and free of NUL.
     */
    public static boolean isValidIaName(String name) {
        return nameProblem(name) == null;
    }

    /** Why {@code name} is not a valid IA name, or null if it is. */
    static String nameProblem(String name) {
        if (name == null) {
            return "IA name is null";
        }
        if (name.isEmpty()) {
            return "IA name is empty";
        }
        if (name.length() >= Dat.NAME_MAX_LENGTH
                || name.getBytes(StandardCharsets.UTF_8).length >= Dat.NAME_MAX_LENGTH) {
            return "IA name is too long (must be shorter than " + Dat.NAME_MAX_LENGTH + " bytes)";
        }
        if (name.indexOf('\0') >= 0) {
            return "IA name contains NUL";
        }
        return null;
    }

    /** Blanks that separate fields (CR and LF end lines before tokenizing). */
    static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\u000B' || c == '\f' || c == '\r' || c == '\n';
    }

    /** Splits one line into fields; returns an error reason, or null with {@code out} filled. */
    private static String tokenize(String line, List<String> out) {
        int n = line.length();
        int i = 0;
        StringBuilder sb = new StringBuilder();
        while (true) {
            while (i < n && isBlank(line.charAt(i))) {
                i++;
            }
            if (i >= n || line.charAt(i) == '#') {
                return null;
            }
            sb.setLength(0);
            int fieldNo = out.size() + 1;
            if (line.charAt(i) == '"') {
                i++;
                boolean closed = false;
                while (i < n) {
                    char c = line.charAt(i);
                    if (c == '\\') {
                        if (i + 1 >= n) {
                            break;
                        }
                        sb.append(line.charAt(i + 1));
                        i += 2;
                    } else if (c == '"') {
                        i++;
                        closed = true;
                        break;
                    } else {
                        sb.append(c);
                        i++;
                    }
                }
                if (!closed) {
                    return "unterminated quote in field " + fieldNo;
                }
                if (i < n && !isBlank(line.charAt(i)) && line.charAt(i) != '#') {
                    return "unexpected character after closing quote of field " + fieldNo;
                }
            } else {
                while (i < n) {
                    char c = line.charAt(i);
                    if (isBlank(c) || c == '#') {
                        break;
                    }
                    if (c == '"') {
                        return "quote inside unquoted field " + fieldNo;
                    }
                    sb.append(c);
                    i++;
                }
            }
            out.add(sb.toString());
        }
    }

    /** Builds an entry from eight fields; returns the entry or a String reason. */
    private static Object toEntry(List<String> f) {
        for (int k = 0; k < FIELDS; k++) {
            if (f.get(k).indexOf('\0') >= 0) {
                return "field " + (k + 1) + " contains NUL";
            }
        }
        String name = f.get(0);
        String problem = nameProblem(name);
        if (problem != null) {
            return problem;
        }

        String api = f.get(1);
        char kind = api.isEmpty() ? '\0' : api.charAt(0);
        int dot = api.indexOf('.');
        long apiMajor = dot < 0 ? -1 : parseUint32(api, 1, dot);
        long apiMinor = dot < 0 ? -1 : parseUint32(api, dot + 1, api.length());
        if ((kind != 'u' && kind != 'k') || apiMajor < 0 || apiMinor < 0) {
            return "bad API version " + snippet(api) + " (expected u|k<major>.<minor>)";
        }

        Boolean threadSafe = switchWord(f.get(2), "threadsafe", "nonthreadsafe");
        if (threadSafe == null) {
            return "bad thread safety " + snippet(f.get(2)) + " (expected threadsafe|nonthreadsafe)";
        }
        Boolean isDefault = switchWord(f.get(3), "default", "nondefault");
        if (isDefault == null) {
            return "bad default flag " + snippet(f.get(3)) + " (expected default|nondefault)";
        }

        String pv = f.get(5);
        int last = pv.lastIndexOf('.');
        int second = last <= 0 ? -1 : pv.lastIndexOf('.', last - 1);
        long provMajor = second <= 0 ? -1 : parseUint32(pv, second + 1, last);
        long provMinor = second <= 0 ? -1 : parseUint32(pv, last + 1, pv.length());
        if (provMajor < 0 || provMinor < 0) {
            return "bad provider version " + snippet(pv) + " (expected <id>.<major>.<minor>)";
        }

        return new RegistryEntry(name, kind, (int) apiMajor, (int) apiMinor, threadSafe, isDefault,
                f.get(4), pv.substring(0, second), (int) provMajor, (int) provMinor, f.get(6), f.get(7));
    }

    /** Parses s[from, to) as an unsigned 32-bit decimal; -1 if empty, not ASCII digits or too big. */
    private static long parseUint32(String s, int from, int to) {
        if (from >= to) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
            if (v > 0xFFFF_FFFFL) {
                return -1;
            }
        }
        return v;
    }

    /** {@return TRUE for the word {@code on}, FALSE for {@code off}, null for anything else} (fields 3 and 4) */
    private static Boolean switchWord(String word, String on, String off) {
        return word.equals(on) ? Boolean.TRUE : word.equals(off) ? Boolean.FALSE : null;
    }

    /** A quoted, shortened, printable rendering of hostile text for a warning. */
    static String snippet(String s) {
        StringBuilder sb = new StringBuilder("\"");
        int limit = Math.min(s.length(), SNIPPET);
        for (int i = 0; i < limit; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0)) {
                sb.append(String.format("\\x%02X", (int) c));
            } else if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (Character.isSurrogate(c)) {
                sb.append('?');
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
        if (s.length() > limit) {
            sb.append("... (").append(s.length()).append(" chars)");
        }
        return sb.toString();
    }

    private static final class Warnings {
        private final List<String> list = new ArrayList<>();
        private int suppressed;

        void add(int line, String reason) {
            if (list.size() < MAX_WARNINGS) {
                list.add("line " + line + ": " + reason);
            } else {
                suppressed++;
            }
        }

        List<String> finish() {
            if (suppressed > 0) {
                list.add(suppressed + " more warnings not shown");
            }
            return list;
        }
    }
}
