package io.jdat.tools.cli;

import java.util.Locale;

/** The JSON text the tools' {@code --json} outputs share. */
public final class Json {
    private Json() {
    }

    /**
     * A JSON string literal: quotes, with {@code "}, {@code \} and control characters escaped.
     *
     * @param s the text
     * @return {@code s} as a JSON string
     */
    public static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
