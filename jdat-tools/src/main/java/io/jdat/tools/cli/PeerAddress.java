package io.jdat.tools.cli;

import io.jdat.mem.MemAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import picocli.CommandLine;

/**
 * A server address on the command line: {@code HOST[:QUALIFIER]} (an IP transport such as {@code tcp}: the
 * IA address is the host, the connection qualifier the port), {@code [IPv6]:QUALIFIER},
 * {@code mem:NAME} (a {@code mem} IA, in this JVM only), or for {@code shm} an IA's instance directory
 * {@code /ABSOLUTE/PATH[:QUALIFIER]} or {@code shm:NAME[:QUALIFIER]} (an IA opened with {@code name=NAME}, in the
 * default base directory).
 *
 * @param address the IA address
 * @param connQual the qualifier given, or -1 for the default
 */
public record PeerAddress(SocketAddress address, long connQual) {
    /**
     * Parses an address.
     *
     * @param text the text
     * @return the address
     * @throws CommandLine.TypeConversionException when it is not one
     */
    public static PeerAddress parse(String text) {
        String t = text.trim();
        if (t.startsWith("mem:")) {
            return new PeerAddress(MemAddress.of(t.substring(4)), -1);
        }
        if (t.startsWith("/") || t.startsWith("shm:")) {
            String path = t;
            long qual = -1;
            int colon = t.lastIndexOf(':');
            if (colon > t.lastIndexOf('/') && colon > (t.startsWith("shm:") ? 3 : -1)) {
                path = t.substring(0, colon);
                qual = port(t.substring(colon + 1), text);
            }
            if (path.startsWith("shm:")) {
                String name = path.substring(4);
                if (!io.jdat.shm.ShmFiles.isValidName(name)) {
                    throw bad(text);
                }
                return new PeerAddress(UnixDomainSocketAddress.of(
                        io.jdat.shm.ShmFiles.defaultBaseDirectory().resolve("ia-" + name)), qual);
            }
            return new PeerAddress(UnixDomainSocketAddress.of(path), qual);
        }
        String host = t;
        long qual = -1;
        int colon = t.lastIndexOf(':');
        if (t.startsWith("[")) {
            int end = t.indexOf(']');
            if (end < 0) {
                throw bad(text);
            }
            host = t.substring(1, end);
            if (end + 1 < t.length()) {
                if (t.charAt(end + 1) != ':') {
                    throw bad(text);
                }
                qual = port(t.substring(end + 2), text);
            }
        } else if (colon >= 0 && t.indexOf(':') == colon) {
            host = t.substring(0, colon);
            qual = port(t.substring(colon + 1), text);
        }
        if (host.isEmpty()) {
            throw bad(text);
        }
        InetSocketAddress a = new InetSocketAddress(host, 0);
        if (a.isUnresolved()) {
            throw new CommandLine.TypeConversionException("unknown host '" + host + "'");
        }
        return new PeerAddress(a, qual);
    }

    private static long port(String s, String text) {
        try {
            long p = Long.parseLong(s);
            if (p >= 0) {
                return p;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw bad(text);
    }

    private static CommandLine.TypeConversionException bad(String text) {
        return new CommandLine.TypeConversionException("'" + text + "' is not a server address: write HOST[:QUALIFIER], "
                + "[IPv6]:QUALIFIER, mem:NAME, /SHM/IA/DIRECTORY[:QUALIFIER] or shm:NAME[:QUALIFIER]");
    }

    /** The picocli converter. */
    public static final class Converter implements CommandLine.ITypeConverter<PeerAddress> {
        @Override
        public PeerAddress convert(String value) {
            return parse(value);
        }
    }

    /**
     * An address as a user writes it: {@code 127.0.0.1}, not {@code /127.0.0.1:0}.
     *
     * @param a the address
     * @return its host, or the address as text where it has none
     */
    public static String display(SocketAddress a) {
        return a instanceof InetSocketAddress i ? i.getHostString() : String.valueOf(a);
    }
}
