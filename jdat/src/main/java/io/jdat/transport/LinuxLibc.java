package io.jdat.transport;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.Optional;

/**
 * Functions of the Linux C library, bound through the FFM linker ({@link Linker#defaultLookup}), for the few
 * system calls a transport makes that the JDK does not offer ({@code shm}: {@code process_vm_readv/writev};
 * {@code tcp}: {@code getsockopt}, {@code getsockname}, {@code getpeername}). A group of functions is bound
 * whole or not at all, so a caller checks one handle for null.
 */
public final class LinuxLibc {
    private LinuxLibc() {
    }

    /** {@return true on Linux}: the only system whose C library the transports bind */
    public static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");
    }

    /**
     * Binds the functions {@code names} of the C library, the i-th with {@code descriptors[i]}, each with
     * {@code options}.
     *
     * @param names       the functions' names
     * @param descriptors their C signatures, in the same order
     * @param options     linker options of every call (e.g. {@link Linker.Option#captureCallState} for errno)
     * @return the handles in the order of {@code names}; null when not on Linux or a function is missing
     * @throws IllegalCallerException when the JVM refuses jdat native access ({@code --illegal-native-access=deny}
     *                                without {@code --enable-native-access} for jdat)
     */
    public static MethodHandle[] bind(String[] names, FunctionDescriptor[] descriptors, Linker.Option... options) {
        if (!isLinux()) {
            return null;
        }
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        MemorySegment[] symbols = new MemorySegment[names.length];
        for (int i = 0; i < names.length; i++) {
            Optional<MemorySegment> s = libc.find(names[i]);
            if (s.isEmpty()) {
                return null;
            }
            symbols[i] = s.get();
        }
        MethodHandle[] handles = new MethodHandle[names.length];
        for (int i = 0; i < names.length; i++) {
            handles[i] = linker.downcallHandle(symbols[i], descriptors[i], options);
        }
        return handles;
    }
}
