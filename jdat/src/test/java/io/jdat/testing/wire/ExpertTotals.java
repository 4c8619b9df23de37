package io.jdat.testing.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the text report of {@code tshark -q -z expert} into {@link ExpertTotal}s. */
final class ExpertTotals {
    /** A section heading such as {@code Warns (4)}. */
    private static final Pattern HEADING = Pattern.compile("^(Errors|Warns|Notes|Chats|Comments) \\(\\d+\\)$");
    /**
     * A row: frequency, group (right-aligned, may hold a space), protocol (no spaces), two spaces, summary.
     * The summary must start with a non-space so that a group with a space is not split wrongly.
     */
    private static final Pattern ROW = Pattern.compile("^\\s*(\\d+)\\s+(.+?)\\s+(\\S+)  (\\S.*)$");

    private ExpertTotals() {}

    /**
     * Parses the report.
     *
     * @param report the standard output of {@code tshark -q -z expert}
     * @return every row, in report order (errors first)
     */
    static List<ExpertTotal> parse(String report) {
        List<ExpertTotal> totals = new ArrayList<>();
        ExpertSeverity severity = null;
        for (String line : report.split("\\R")) {
            Matcher heading = HEADING.matcher(line.strip());
            if (heading.matches()) {
                severity = ExpertSeverity.ofHeading(heading.group(1));
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (severity != null && row.matches()) {
                totals.add(new ExpertTotal(severity, row.group(2), row.group(3), row.group(4),
                        Integer.parseInt(row.group(1))));
            }
        }
        return totals;
    }
}
