package io.jdat.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.CompletionFlags;
import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.IaAttr;
import io.jdat.Registry;
import io.jdat.LmrTriplet;
import io.jdat.RegistryEntry;
import io.jdat.RmrTriplet;
import io.jdat.testing.DataPath;
import io.jdat.testing.Pair;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Registry entries the {@code shm} tests open, and access to a live connection's file. */
public final class ShmTesting {
    /** The defaults: inline up to 16 KiB, cross-memory attach beyond. */
    public static final String SHM = "shm-test";
    /** No cross-memory attach: fragments through the ring, RDMA Reads through the staging area. */
    public static final String SHM_BOUNCE = "shm-test-bounce";
    /** Tiny rings and staging, small inline size, no cross-memory attach: everything is many pieces. */
    public static final String SHM_SMALL = "shm-test-small";
    /** The well-known name {@code jdat-test-named}: its address is {@code <base>/ia-jdat-test-named}. */
    public static final String SHM_NAMED = "shm-test-named";

    private ShmTesting() {
    }

    /** Adds the entries (again after a test reloaded the registry). */
    public static synchronized void register() {
        add(SHM, "");
        add(SHM_BOUNCE, "xmem=off");
        add(SHM_SMALL, "xmem=off ring=65536 inline=100 staging=4096");
        add(SHM_NAMED, "name=jdat-test-named");
    }

    /** Registers the {@code shm} IA {@code name} with the IA parameters {@code params}, if not registered yet. */
    public static void add(String name, String params) {
        try {
            Registry.addProvider(new RegistryEntry(name, 'u', 1, 2, true, false, "shm", "jdat", 1, 0, params, ""));
        } catch (DatException e) {
            if (e.type() != DatReturnType.PROVIDER_ALREADY_REGISTERED) {
                throw e;
            }
        }
    }

    /**
     * Moves data both ways over {@code p}'s connection and checks every byte: a Send each way, an RDMA Write of
     * 30000 bytes (beyond the default inline size: cross-memory attach where permitted, else fragments) and an
     * RDMA Read of 20000 bytes back.
     */
    public static void exchangeBothWays(Pair p) {
        for (int i = 0; i < 40000; i++) {
            p.client.buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            p.server.buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13));
        }
        p.server.ep.postRecv(1, new LmrTriplet[] {p.server.lmr.triplet(50000, 4096)}, 1, CompletionFlags.DEFAULT);
        p.client.ep.postRecv(1, new LmrTriplet[] {p.client.lmr.triplet(50000, 4096)}, 1, CompletionFlags.DEFAULT);
        p.client.ep.postSend(1, new LmrTriplet[] {p.client.lmr.triplet(0, 1000)}, 2, CompletionFlags.DEFAULT);
        p.server.ep.postSend(1, new LmrTriplet[] {p.server.lmr.triplet(0, 3000)}, 2, CompletionFlags.DEFAULT);
        DataPath.dtoOk(p.client.reqEvd, 2, 1000);
        DataPath.dtoOk(p.server.recvEvd, 1, 1000);
        DataPath.dtoOk(p.server.reqEvd, 2, 3000);
        DataPath.dtoOk(p.client.recvEvd, 1, 3000);
        for (int i = 0; i < 3000; i++) {
            if (i < 1000) {
                assertEquals((byte) (i * 7), p.server.buf.get(ValueLayout.JAVA_BYTE, 50000 + i), "send at " + i);
            }
            assertEquals((byte) (i * 13), p.client.buf.get(ValueLayout.JAVA_BYTE, 50000 + i), "send back at " + i);
        }
        RmrTriplet remote = new RmrTriplet(p.server.lmr.rmrContext(), p.server.buf.address() + 10000, 30000);
        p.client.ep.postRdmaWrite(1, new LmrTriplet[] {p.client.lmr.triplet(0, 30000)}, 3, remote,
                CompletionFlags.DEFAULT);
        DataPath.dtoOk(p.client.reqEvd, 3, 30000);
        for (int i = 0; i < 30000; i++) {
            assertEquals((byte) (i * 7), p.server.buf.get(ValueLayout.JAVA_BYTE, 10000 + i), "write at " + i);
        }
        p.client.ep.postRdmaRead(1, new LmrTriplet[] {p.client.lmr.triplet(40000, 20000)}, 4,
                new RmrTriplet(p.server.lmr.rmrContext(), p.server.buf.address() + 10000, 20000),
                CompletionFlags.DEFAULT);
        DataPath.dtoOk(p.client.reqEvd, 4, 20000);
        for (int i = 0; i < 20000; i++) {
            assertEquals((byte) (i * 7), p.client.buf.get(ValueLayout.JAVA_BYTE, 40000 + i), "read at " + i);
        }
    }

    /**
     * The file of {@code p}'s connection, in the client's (the active side's) instance directory; it is there
     * only while {@link ShmActive#keepConnectionFiles} is set (files are otherwise unlinked once both sides
     * mapped them).
     */
    static Path connectionFile(Pair p) throws IOException {
        Path dir = ((UnixDomainSocketAddress) p.client.ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress()).getPath();
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("c-")).findFirst().orElseThrow();
        }
    }

    /** A third, read-write mapping of {@code p}'s connection file in {@code arena} (see {@link #connectionFile}). */
    static MemorySegment mapConnectionFile(Pair p, Arena arena) throws IOException {
        try (FileChannel ch = FileChannel.open(connectionFile(p), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
        }
    }

    /**
     * For a test class that plays a third party on live connection files: registers the entries and keeps the
     * connection files' names ({@link ShmActive#keepConnectionFiles}) while the class runs.
     */
    static final class KeepConnectionFiles implements BeforeAllCallback, AfterAllCallback {
        @Override
        public void beforeAll(ExtensionContext context) {
            register();
            ShmActive.keepConnectionFiles = true;
        }

        @Override
        public void afterAll(ExtensionContext context) {
            ShmActive.keepConnectionFiles = false;
        }
    }

    /** The sleeping word of the serving IA's {@link ReadyBoard} of {@code p}, in a mapping of its own. */
    static MemorySegment serverSleepingWord(Pair p, Arena arena) throws IOException {
        Path dir = ((UnixDomainSocketAddress) p.serverAddress()).getPath();
        return RingFile.open(dir.resolve(ReadyBoard.FILE), arena).asSlice(ReadyBoard.SLEEPING, 4);
    }

    /** Spins until the int {@code word} holds {@code value}; fails with {@code what} after 5 s. */
    static void awaitWord(MemorySegment word, int value, String what) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while ((int) ShmRing.INT.getVolatile(word, 0L) != value) {
            org.junit.jupiter.api.Assertions.assertTrue(System.nanoTime() < deadline, what);
            Thread.onSpinWait();
        }
    }
}
