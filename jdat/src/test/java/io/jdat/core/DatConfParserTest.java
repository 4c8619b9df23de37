package io.jdat.core;

import io.jdat.RegistryEntry;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.ProviderInfo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DatConfParserTest {
    /** The examples of API.md §9, verbatim. */
    static final String SPEC_EXAMPLES = """
            OpenIB-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "ib0 0" ""
            ofa-v2-ib0 u2.0 nonthreadsafe default libdaplofa.so.2 dapl.2.0 "ib0 0" ""
            ibd0 u1.2 nonthreadsafe default udapl_tavor.so.1 SUNW.1.0 "" "driver_name=tavor"
            """;

    static final String GOOD = "good u1.2 threadsafe default mem jdat.1.0 \"\" \"\"";

    private static DatConfParser.Result parse(String text) {
        return assertDoesNotThrow(() -> DatConfParser.parse(text));
    }

    /** Parses one line that must be well-formed and registered. */
    private static RegistryEntry one(String line) {
        DatConfParser.Result r = parse(line);
        assertEquals(List.of(), r.warnings(), line);
        assertEquals(1, r.entries().size(), line);
        return r.entries().get(0);
    }

    /** Parses one line that must be skipped as malformed; returns its warning. */
    private static String malformed(String line) {
        DatConfParser.Result r = parse(line + "\n" + GOOD + "\n");
        assertEquals(List.of(), r.wellFormed().stream().filter(e -> !e.iaName().equals("good")).toList(), line);
        assertEquals(1, r.entries().size(), "the good line after a malformed one must still load");
        assertEquals("good", r.entries().get(0).iaName());
        assertEquals(1, r.warnings().size(), () -> line + " -> " + r.warnings());
        assertTrue(r.warnings().get(0).startsWith("line 1: "), r.warnings().get(0));
        return r.warnings().get(0);
    }

    @Test
    @DisplayName("CFG-01 CFG-02: the examples of API.md §9 parse field by field")
    void specExamples() {
        DatConfParser.Result r = parse(SPEC_EXAMPLES);
        assertEquals(List.of(), r.warnings());
        assertEquals(List.of(
                new RegistryEntry("OpenIB-cma", 'u', 1, 2, false, true, "libdaplcma.so.1", "dapl", 1, 2, "ib0 0", ""),
                new RegistryEntry("ofa-v2-ib0", 'u', 2, 0, false, true, "libdaplofa.so.2", "dapl", 2, 0, "ib0 0", ""),
                new RegistryEntry("ibd0", 'u', 1, 2, false, true, "udapl_tavor.so.1", "SUNW", 1, 0, "",
                        "driver_name=tavor")),
                r.entries());
        assertEquals(r.entries(), r.wellFormed());
        assertEquals(new ProviderInfo("OpenIB-cma", 1, 2, false), r.entries().get(0).toProviderInfo());
    }

    @Test
    @DisplayName("CFG-01: comments and blank lines are ignored; # inside quotes is data")
    void commentsAndBlankLines() {
        String text = """
                # dat.conf written by hand
                \t  \s
                #OpenIB-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 "ib0 0" ""

                a u1.2 threadsafe default mem jdat.1.0 "x # not a comment" "" # trailing comment
                b u1.2 threadsafe default mem jdat.1.0 "" ""# comment right after a quote
                c u1.2 threadsafe default mem jdat.1.0 p q#comment inside a field ends it
                   # indented comment
                """;
        DatConfParser.Result r = parse(text);
        assertEquals(List.of(), r.warnings());
        assertEquals(List.of("a", "b", "c"), r.entries().stream().map(RegistryEntry::iaName).toList());
        assertEquals("x # not a comment", r.entries().get(0).iaParams());
        assertEquals("q", r.entries().get(2).platformParams());
        // A comment that cuts a line to seven fields makes it malformed.
        assertTrue(malformed("d u1.2 threadsafe default mem jdat.1.0 \"\" #\"\"").contains("expected 8 fields, found 7"));
    }

    @Test
    @DisplayName("CFG-01: double quotes allow blanks, backslash escapes the next character, \"\" is empty")
    void quoting() {
        RegistryEntry e = one("\"my ia\" u1.2 threadsafe default \"lib with blanks.so\" jdat.1.0 "
                + "\"say \\\"hi\\\" \\\\ \\x\" \"\"");
        assertEquals("my ia", e.iaName());
        assertEquals("lib with blanks.so", e.library());
        assertEquals("say \"hi\" \\ x", e.iaParams());
        assertEquals("", e.platformParams());
        // Outside quotes a backslash is an ordinary character.
        assertEquals("C:\\dapl\\lib.dll", one("w u1.2 threadsafe default C:\\dapl\\lib.dll jdat.1.0 a b").library());
        // Every field may be quoted, keywords included.
        RegistryEntry q = one("\"q\" \"u1.2\" \"threadsafe\" \"default\" \"mem\" \"jdat.1.0\" \"\" \"\"");
        assertEquals(new RegistryEntry("q", 'u', 1, 2, true, true, "mem", "jdat", 1, 0, "", ""), q);
    }

    @Test
    @DisplayName("CFG-01: tabs and other blanks separate fields; CRLF, CR and LF end lines; a BOM is ignored")
    void separatorsAndLineEnds() {
        RegistryEntry e = one("t\tu1.2\t\tthreadsafe \u000Bdefault\fmem jdat.1.0 \"a\tb\" z");
        assertEquals("a\tb", e.iaParams());
        String crlf = "\uFEFF# comment\r\n" + SPEC_EXAMPLES.replace("\n", "\r\n");
        DatConfParser.Result r = parse(crlf);
        assertEquals(List.of(), r.warnings());
        assertEquals(parse(SPEC_EXAMPLES).entries(), r.entries());
        assertEquals("", r.entries().get(0).platformParams(), "CR must not stick to the last field");
        DatConfParser.Result cr = parse(SPEC_EXAMPLES.replace("\n", "\r"));
        assertEquals(parse(SPEC_EXAMPLES).entries(), cr.entries());
        // Line numbers count CRLF as one line end.
        DatConfParser.Result bad = parse("# c\r\n\r\nbad line\r\n");
        assertEquals(List.of("line 3: expected 8 fields, found 2"), bad.warnings());
    }

    @ParameterizedTest(name = "CFG-02: {0}")
    @ValueSource(strings = {"u1.2", "u2.0", "k1.2", "u0.0", "u01.002", "u4294967295.4294967295"})
    @DisplayName("CFG-02: API version u|k<major>.<minor> with unsigned decimal numbers")
    void goodApiVersions(String version) {
        RegistryEntry e = parse("n " + version + " threadsafe default mem jdat.1.0 \"\" \"\"").wellFormed().get(0);
        assertEquals(version.charAt(0), e.apiKind());
        String[] mm = version.substring(1).split("\\.");
        assertEquals(Integer.parseUnsignedInt(mm[0]), e.apiMajor());
        assertEquals(Integer.parseUnsignedInt(mm[1]), e.apiMinor());
    }

    @ParameterizedTest(name = "CFG-02 CFG-03: {0}")
    @ValueSource(strings = {"x1.2", "U1.2", "1.2", "u1", "u1.", "u.2", "u1.2.3", "u-1.2", "u+1.2", "u1.a",
        "u 1.2", "u4294967296.0", "u1.99999999999999999999", "u１.２", "\"\"", "uk1.2"})
    @DisplayName("CFG-02 CFG-03: a bad API version makes the line malformed")
    void badApiVersions(String version) {
        String w = malformed("n " + (version.contains(" ") ? "\"" + version + "\"" : version)
                + " threadsafe default mem jdat.1.0 \"\" \"\"");
        assertTrue(w.contains("bad API version"), w);
    }

    @Test
    @DisplayName("CFG-02: threadsafe|nonthreadsafe and default|nondefault, case-sensitive")
    void keywords() {
        DatConfParser.Result r = parse("""
                a u1.2 threadsafe default mem jdat.1.0 "" ""
                b u1.2 nonthreadsafe default mem jdat.1.0 "" ""
                c u1.2 threadsafe nondefault mem jdat.1.0 "" ""
                """);
        assertTrue(r.wellFormed().get(0).threadSafe());
        assertFalse(r.wellFormed().get(1).threadSafe());
        assertTrue(r.wellFormed().get(1).isDefault());
        assertFalse(r.wellFormed().get(2).isDefault());
        for (String ts : List.of("Threadsafe", "thread-safe", "safe", "\"\"", "THREADSAFE", "true")) {
            assertTrue(malformed("n u1.2 " + ts + " default mem jdat.1.0 a b").contains("bad thread safety"), ts);
        }
        for (String d : List.of("Default", "non-default", "yes", "\"\"", "1")) {
            assertTrue(malformed("n u1.2 threadsafe " + d + " mem jdat.1.0 a b").contains("bad default flag"), d);
        }
    }

    @Test
    @DisplayName("CFG-02: provider version id.major.minor, split at the last two dots")
    void providerVersion() {
        RegistryEntry e = one("n u1.2 threadsafe default mem org.ofa.dapl.2.10 a b");
        assertEquals("org.ofa.dapl", e.providerId());
        assertEquals(2, e.providerMajor());
        assertEquals(10, e.providerMinor());
        assertEquals("SUNW", one("n u1.2 threadsafe default mem SUNW.1.0 a b").providerId());
        for (String pv : List.of("dapl.1", "dapl", ".1.2", "dapl.x.2", "dapl.1.2a", "dapl..2", "dapl.1.",
                "\"\"", "dapl.1.4294967296", "1.2")) {
            assertTrue(malformed("n u1.2 threadsafe default mem " + pv + " a b").contains("bad provider version"), pv);
        }
    }

    @Test
    @DisplayName("CFG-01 CFG-03: lines without exactly eight fields are skipped, parsing continues")
    void fieldCount() {
        assertEquals("line 1: expected 8 fields, found 7",
                malformed("OpenIB-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 \"ib0 0\""));
        assertEquals("line 1: expected 8 fields, found 9",
                malformed("OpenIB-cma u1.2 nonthreadsafe default libdaplcma.so.1 dapl.1.2 \"ib0 0\" \"\" extra"));
        assertEquals("line 1: expected 8 fields, found 1", malformed("junk"));
        assertEquals("line 1: expected 8 fields, found 1", malformed("\"\""));
        // The OFA man page says "seven" fields; a seven-field line (no platform params) is malformed.
        assertTrue(malformed("ibd0 u1.2 nonthreadsafe default udapl_tavor.so.1 SUNW.1.0 \"\"").contains("found 7"));
    }

    @Test
    @DisplayName("CFG-01 CFG-03: bad quoting is malformed: unterminated quote, escape at end, stray quotes")
    void badQuoting() {
        assertTrue(malformed("n u1.2 threadsafe default mem jdat.1.0 \"\" \"ib0 0").contains("unterminated quote in field 8"));
        assertTrue(malformed("n u1.2 threadsafe default mem jdat.1.0 \"\" \"abc\\\"").contains("unterminated quote"));
        assertTrue(malformed("n u1.2 threadsafe default mem jdat.1.0 \"\" \"abc\\").contains("unterminated quote"));
        assertTrue(malformed("\"").contains("unterminated quote in field 1"));
        assertTrue(malformed("n u1.2 threadsafe default mem jdat.1.0 \"a\"b \"\"").contains("after closing quote"));
        assertTrue(malformed("n u1.2 threadsafe default mem jdat.1.0 a\"b\" \"\"").contains("quote inside unquoted"));
        // An unterminated quote does not swallow the following lines.
        DatConfParser.Result r = parse("a u1.2 threadsafe default mem jdat.1.0 \"x\n y\" \"\"\n" + GOOD);
        assertEquals(List.of("good"), r.entries().stream().map(RegistryEntry::iaName).toList());
        assertEquals(2, r.warnings().size(), r.warnings().toString());
    }

    @Test
    @DisplayName("CFG-03 IAO-07: IA names must be 1..255 UTF-8 bytes without NUL")
    void nameLength() {
        String n255 = "n".repeat(255);
        assertEquals(n255, one(n255 + " u1.2 threadsafe default mem jdat.1.0 a b").iaName());
        assertTrue(malformed("n".repeat(256) + " u1.2 threadsafe default mem jdat.1.0 a b").contains("too long"));
        assertTrue(malformed("é".repeat(128) + " u1.2 threadsafe default mem jdat.1.0 a b").contains("too long"));
        assertEquals("é".repeat(127), one("é".repeat(127) + " u1.2 threadsafe default mem jdat.1.0 a b").iaName());
        assertTrue(malformed("\"\" u1.2 threadsafe default mem jdat.1.0 a b").contains("empty"));
        assertTrue(malformed("a\0b u1.2 threadsafe default mem jdat.1.0 a b").contains("NUL"));
        assertTrue(malformed("ab u1.2 threadsafe default mem jdat.1.0 a \"b\0\"").contains("NUL"));
        assertTrue(DatConfParser.isValidIaName(n255));
        assertFalse(DatConfParser.isValidIaName(n255 + "n"));
        assertFalse(DatConfParser.isValidIaName(null));
        assertFalse(DatConfParser.isValidIaName(""));
    }

    @Test
    @DisplayName("CFG-03: only 'u' lines marked 'default' are registered")
    void onlyUserDefault() {
        DatConfParser.Result r = parse("""
                kern k1.2 threadsafe default libk.so dapl.1.2 "" ""
                nd u1.2 threadsafe nondefault libnd.so dapl.1.2 "" ""
                knd k1.2 threadsafe nondefault libknd.so dapl.1.2 "" ""
                ok u1.2 threadsafe default libok.so dapl.1.2 "" ""
                """);
        assertEquals(List.of("ok"), r.entries().stream().map(RegistryEntry::iaName).toList());
        assertEquals(List.of("kern", "nd", "knd", "ok"), r.wellFormed().stream().map(RegistryEntry::iaName).toList());
        assertEquals(3, r.warnings().size());
        assertTrue(r.warnings().get(0).startsWith("line 1: IA name \"kern\" not registered"), r.warnings().get(0));
        assertTrue(r.warnings().get(2).startsWith("line 3: "), r.warnings().get(2));
    }

    @Test
    @DisplayName("CFG-03: the first registered line of a duplicate IA name wins")
    void duplicates() {
        DatConfParser.Result r = parse("""
                dup k1.2 threadsafe default kernel.so x.1.0 "" ""
                dup u1.2 nonthreadsafe nondefault nondefault.so x.1.0 "" ""
                dup u1.2 nonthreadsafe default first.so x.1.0 "" ""
                other u1.2 threadsafe default other.so x.1.0 "" ""
                dup u2.0 threadsafe default second.so x.1.0 "" ""
                dup u1.2 nonthreadsafe default third.so x.1.0 "" ""
                """);
        assertEquals(List.of("first.so", "other.so"), r.entries().stream().map(RegistryEntry::library).toList());
        assertEquals(4, r.warnings().size(), r.warnings().toString());
        assertEquals("line 5: IA name \"dup\" already defined on line 3, ignored", r.warnings().get(2));
        assertEquals("line 6: IA name \"dup\" already defined on line 3, ignored", r.warnings().get(3));
    }

    @Test
    @DisplayName("CFG-03: malformed lines of every kind are skipped; every good line around them loads")
    void mixedFile() {
        String text = """
                # header
                a u1.2 threadsafe default mem jdat.1.0 "" ""
                broken u1.2 threadsafe default mem jdat.1.0 ""
                b u1.2 threadsafe default mem jdat.1.0 "" "" extra
                c u1.2 threadsafe default mem jdat.1.0 "oops ""
                d v1.2 threadsafe default mem jdat.1.0 "" ""
                e u1.2 safe default mem jdat.1.0 "" ""
                f u1.2 threadsafe maybe mem jdat.1.0 "" ""
                g u1.2 threadsafe default mem jdat "" ""
                h u1.2 threadsafe default mem jdat.1.0 "" ""
                """;
        DatConfParser.Result r = parse(text);
        assertEquals(List.of("a", "h"), r.entries().stream().map(RegistryEntry::iaName).toList());
        assertEquals(7, r.warnings().size(), r.warnings().toString());
        for (int i = 0; i < 7; i++) {
            assertTrue(r.warnings().get(i).startsWith("line " + (i + 3) + ": "), r.warnings().get(i));
        }
    }

    @Test
    @DisplayName("CFG-01 CFG-03: hostile input (binary junk, huge lines, NULs, quote storms) never throws")
    void hostileInput() {
        Random rnd = new Random(42);
        for (int round = 0; round < 200; round++) {
            byte[] junk = new byte[rnd.nextInt(4096)];
            rnd.nextBytes(junk);
            String utf8 = new String(junk, StandardCharsets.UTF_8);
            String latin1 = new String(junk, StandardCharsets.ISO_8859_1);
            for (String text : List.of(utf8, latin1)) {
                DatConfParser.Result r = parse(text + "\n" + GOOD + "\n" + text);
                assertTrue(r.entries().stream().anyMatch(e -> e.iaName().equals("good")));
                for (String w : r.warnings()) {
                    assertTrue(w.length() < 300, "warnings must stay short: " + w.length());
                }
            }
        }
        String hugeField = "x".repeat(5_000_000);
        assertTrue(malformed(hugeField).contains("expected 8 fields"));
        assertTrue(malformed(hugeField + " u1.2 threadsafe default mem jdat.1.0 a b").contains("too long"));
        String hugeParams = one("n u1.2 threadsafe default mem jdat.1.0 \"" + hugeField + "\" b").iaParams();
        assertEquals(5_000_000, hugeParams.length());
        assertTrue(malformed("n u1.2 threadsafe default mem jdat.1.0 a b " + "z ".repeat(1_000_000))
                .contains("found 1000008"));
        assertTrue(malformed("n u" + "9".repeat(100_000) + ".2 threadsafe default mem jdat.1.0 a b")
                .contains("bad API version"));
        assertTrue(malformed("\"".repeat(100_001)).contains("after closing quote"));
        assertTrue(malformed("\"" + "\\\"".repeat(100_000)).contains("unterminated"));
        assertTrue(malformed("\\".repeat(100_000)).contains("expected 8 fields"));
        parse("\0".repeat(10_000));
        parse("\n".repeat(1_000_000));
        parse("\r\n".repeat(100_000) + "#".repeat(100_000));
        parse("\uD800\uDFFF\uFFFF\uFFFE \uDC00 u1.2");
        parse("");
    }

    @Test
    @DisplayName("CFG-03: warnings are capped so a huge junk file cannot flood the caller")
    void warningCap() {
        DatConfParser.Result r = parse("junk\n".repeat(DatConfParser.MAX_WARNINGS + 500) + GOOD);
        assertEquals(DatConfParser.MAX_WARNINGS + 1, r.warnings().size());
        assertEquals("500 more warnings not shown", r.warnings().get(DatConfParser.MAX_WARNINGS));
        assertEquals(1, r.entries().size());
    }

    @Test
    @DisplayName("CFG-01 CFG-02: toConfLine writes lines that parse back to equal entries")
    void roundTrip() {
        List<RegistryEntry> samples = List.of(
                new RegistryEntry("mem", 'u', 1, 2, true, true, "mem", "jdat", 1, 0, "", ""),
                new RegistryEntry("a b#c\"d\\e", 'u', 0, -1, false, true, "lib \"x\".so", "org.x", -1, 7,
                        "ib0 0", "driver_name=tavor"),
                new RegistryEntry("k", 'k', 3, 4, true, false, "C:\\x", "a.b.c", 0, 0, "\t", "#"));
        for (RegistryEntry e : samples) {
            DatConfParser.Result r = parse(e.toConfLine());
            assertEquals(List.of(e), r.wellFormed(), e.toConfLine());
        }
        assertThrows(IllegalStateException.class,
                () -> new RegistryEntry("x", 'u', 1, 2, true, true, "a\nb", "p", 1, 0, "", "").toConfLine());
        assertThrows(IllegalStateException.class,
                () -> new RegistryEntry("x", 'u', 1, 2, true, true, null, "p", 1, 0, "", "").toConfLine());
    }

    @Test
    @DisplayName("CFG-01 CFG-03: random mutations of valid lines never throw, and all entries round-trip")
    void fuzz() {
        Random rnd = new Random(7);
        String alphabet = " \t\"\\#.uk0123456789abc\r\n\0é";
        String[] seeds = SPEC_EXAMPLES.split("\n");
        for (int round = 0; round < 20_000; round++) {
            StringBuilder sb = new StringBuilder(seeds[rnd.nextInt(seeds.length)]);
            int edits = 1 + rnd.nextInt(4);
            for (int k = 0; k < edits; k++) {
                int pos = rnd.nextInt(sb.length() + 1);
                switch (rnd.nextInt(3)) {
                    case 0 -> sb.insert(pos, alphabet.charAt(rnd.nextInt(alphabet.length())));
                    case 1 -> {
                        if (pos < sb.length()) {
                            sb.deleteCharAt(pos);
                        }
                    }
                    default -> {
                        if (pos < sb.length()) {
                            sb.setCharAt(pos, alphabet.charAt(rnd.nextInt(alphabet.length())));
                        }
                    }
                }
            }
            DatConfParser.Result r = parse(sb.toString());
            for (RegistryEntry e : r.wellFormed()) {
                assertTrue(DatConfParser.isValidIaName(e.iaName()));
                assertEquals(List.of(e), parse(e.toConfLine()).wellFormed(), sb.toString());
            }
        }
    }

    @Test
    @DisplayName("CFG-01: parse(Path) reads a file as UTF-8; unreadable or oversized files throw IOException")
    void files(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("dat.conf");
        Files.writeString(f, SPEC_EXAMPLES.replace("\n", "\r\n"));
        assertEquals(parse(SPEC_EXAMPLES), DatConfParser.parse(f));

        Path bin = dir.resolve("bin.conf");
        byte[] line = "n u1.2 threadsafe default mem jdat.1.0 \"\u00e9\" x\n".getBytes(StandardCharsets.UTF_8);
        byte[] withJunk = new byte[line.length + 4];
        System.arraycopy(line, 0, withJunk, 0, line.length);
        withJunk[line.length] = (byte) 0xFF;
        withJunk[line.length + 1] = (byte) 0xC3;
        withJunk[line.length + 2] = 0;
        withJunk[line.length + 3] = '\n';
        Files.write(bin, withJunk);
        DatConfParser.Result r = DatConfParser.parse(bin);
        assertEquals("é", r.entries().get(0).iaParams());
        assertEquals(1, r.warnings().size());

        assertThrows(IOException.class, () -> DatConfParser.parse(dir.resolve("missing.conf")));
        assertThrows(IOException.class, () -> DatConfParser.parse(dir));
        Path big = dir.resolve("big.conf");
        Files.write(big, new byte[DatConfParser.MAX_FILE_BYTES + 1]);
        assertThrows(IOException.class, () -> DatConfParser.parse(big));
    }
}
