package io.jdat.shm;

import io.jdat.transport.IaParameters;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The settings of one {@code shm} IA, from its registry entry's IA parameters (dat.conf field 7): a
 * space-separated list of {@code key=value} words.
 *
 * <pre>
 *   name=server dir=/dev/shm/jdat ring=1048576 inline=16384 xmem=auto
 * </pre>
 *
 * <ul>
 *   <li>{@code name}: the IA's well-known name on the host; its address is then the directory
 *       {@code <dir>/ia-<name>}, the same on every run (default: a fresh {@code ia-<pid>-<random>}). Letters,
 *       digits, {@code . _ -}, up to 64 characters; a second live IA of the same name fails to open;</li>
 *   <li>{@code dir}: the base directory of the provider's files (default {@link ShmFiles#defaultBaseDirectory()},
 *       which the system property {@value ShmFiles#BASE_DIRECTORY_PROPERTY} also sets);</li>
 *   <li>{@code ring}: bytes of each direction's ring, a power of two from 64 KiB to 64 MiB (1 MiB);</li>
 *   <li>{@code inline}: largest Send or RDMA Write whose bytes travel in the ring (16384); larger ones are
 *       copied once by the memory's owner with cross-memory attach, or in fragments through the ring where
 *       that is not permitted;</li>
 *   <li>{@code staging}: bytes of each side's read-staging area, used for RDMA Read data without cross-memory
 *       attach (262144);</li>
 *   <li>{@code xmem}: {@code auto} uses cross-memory attach where the kernel and the JVM permit it (native
 *       access: see {@link CrossMemory}), {@code off} never (fragments and staging only);</li>
 *   <li>{@code peer_timeout}: the liveness bound in milliseconds, 0 (the default) for none: a connection whose
 *       peer's heartbeat ({@link ConnectionLayout#HEARTBEAT}) does not move for this long breaks
 *       ({@code DAT_CONNECTION_EVENT_BROKEN}; see {@code docs/liveness.md}).</li>
 * </ul>
 *
 * @param name        the IA's name, or null for a fresh one
 * @param baseDir     the base directory, or null for the default
 * @param ringCapacity bytes per ring
 * @param inline      largest inline payload
 * @param staging     bytes per staging area
 * @param crossMemory use cross-memory attach where permitted
 * @param peerTimeoutMillis the liveness bound, 0 for none
 */
record ShmConfig(String name, Path baseDir, int ringCapacity, int inline, int staging, boolean crossMemory,
        int peerTimeoutMillis) {
    static final int DEFAULT_RING = 1 << 20;
    private static final IaParameters PARAMETERS = new IaParameters("shm",
            "name=NAME, dir=PATH, ring=BYTES, inline=BYTES, staging=BYTES, xmem=auto|off, peer_timeout=MS");

    /** Parses IA parameters; a bad word is {@code DAT_INVALID_PARAMETER}. */
    static ShmConfig parse(String params) {
        String name = null;
        Path dir = null;
        int ring = DEFAULT_RING;
        int inline = 16384;
        int staging = 256 * 1024;
        boolean xmem = true;
        int peerTimeout = 0;
        for (String w : IaParameters.words(params)) {
            String k = IaParameters.key(w);
            if (k == null || k.isEmpty()) {
                throw PARAMETERS.notUnderstood(w);
            }
            String v = IaParameters.value(w);
            switch (k) {
                case "name" -> {
                    if (!ShmFiles.isValidName(v)) {
                        throw IaParameters.invalid("shm IA parameter " + w
                                + ": a name is 1..64 letters, digits, '.', '_' or '-', not starting with '.'");
                    }
                    name = v;
                }
                case "dir" -> dir = Path.of(v).toAbsolutePath().normalize();
                case "ring" -> {
                    ring = PARAMETERS.range(v, 64 * 1024, 64 << 20, w);
                    if (Integer.bitCount(ring) != 1) {
                        throw IaParameters.invalid("shm IA parameter " + w + ": the ring size must be a power of two");
                    }
                }
                case "inline" -> inline = PARAMETERS.range(v, 0, 1 << 20, w);
                case "staging" -> staging = PARAMETERS.range(v, 4096, 64 << 20, w);
                case "xmem" -> xmem = switch (v.toLowerCase(Locale.ROOT)) {
                    case "auto", "on" -> true;
                    case "off" -> false;
                    default -> throw PARAMETERS.notUnderstood(w);
                };
                case "peer_timeout" -> peerTimeout = v.equals("0") ? 0 : PARAMETERS.range(v, 100, 86_400_000, w);
                default -> throw PARAMETERS.notUnderstood(w);
            }
        }
        // the inline payload must fit one ring record with the largest record header
        inline = Math.min(inline, RingDescriptor.maxPayload(ring) - Records.MAX_HEADER);
        return new ShmConfig(name, dir, ring, inline, staging, xmem, peerTimeout);
    }
}
