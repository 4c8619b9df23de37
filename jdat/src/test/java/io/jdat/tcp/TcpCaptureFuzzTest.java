package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.jdat.tcp.FuzzFrames.Seg;
import io.jdat.tcp.FuzzServer.Case;
import io.jdat.tcp.FuzzServer.Emitted;
import io.jdat.tcp.FuzzServer.Env;
import io.jdat.tcp.FuzzServer.Step;
import io.jdat.testing.wire.Fpdu;
import io.jdat.testing.wire.IwarpConnection;
import io.jdat.testing.wire.IwarpStreamDecoder;
import io.jdat.testing.wire.PcapReader;
import io.jdat.testing.wire.ReadRequest;
import io.jdat.testing.wire.SharedCaptures;
import io.jdat.testing.wire.TcpSegment;
import io.jdat.testing.wire.TcpStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays of real soft-iWARP traffic ({@code shared/interop/captures}, read with {@link PcapReader}) against a
 * jdat {@code tcp} server, through the fuzz harness ({@link FuzzServer}, {@link FuzzModel}): every direction of
 * every accepted MPA connection, after our own handshake with the capture's CRC setting, FPDUs sent in the
 * capture's own TCP segment sizes and again one byte at a time.
 *
 * <ul>
 *   <li>verbatim: the captured bytes as they are. siw's STags and TOs name nothing here, so the model predicts
 *       where the server must stop (an RDMA Write or Read Response: DDP tagged invalid STag; a Read Request:
 *       RDMAP remote protection) and that the Sends before that land in the posted receives;</li>
 *   <li>rebased: tagged STags and TOs (and Read Request sources) moved into the server's writable region and
 *       its RDMA Read sink, so that the whole real conversation runs and every byte it places is checked.</li>
 * </ul>
 *
 * Skipped when the captures are not beside the repository.
 */
class TcpCaptureFuzzTest {
    /** At most this many FPDUs of one direction (the captures are small; this bounds a large one). */
    static final int MAX_FPDUS = 64;
    private static FuzzServer server;

    @BeforeAll
    static void start() {
        server = new FuzzServer(TcpTesting.LO);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** One captured FPDU, sent as captured or moved into our memory. */
    record Replayed(Fpdu fpdu, boolean rebase) implements Step {
        @Override
        public Emitted emit(Env env, FuzzModel m) {
            Seg s = seg(fpdu, env.crc());
            if (!rebase) {
                byte[] b = new byte[fpdu.length()];
                System.arraycopy(fpdu.crcInput(), 0, b, 0, fpdu.length() - Ddp.CRC_FIELD);
                System.arraycopy(fpdu.crcField(), 0, b, fpdu.length() - Ddp.CRC_FIELD, Ddp.CRC_FIELD);
                return new Emitted(b, s);
            }
            int len = s.payload().length;
            if (s.tagged() && s.opcode() == Ddp.OP_WRITE) {
                s = withTagged(s, env.writableContext(), env.base() + fit(s.to(), len, env.regionLength()));
            } else if (s.tagged() && s.opcode() == Ddp.OP_READ_RESPONSE && env.readLength() > 0) {
                s = withTagged(s, env.readSinkStag(), fit(s.to(), len, env.readLength()));
            } else if (!s.tagged() && s.opcode() == Ddp.OP_READ_REQUEST) {
                long size = Integer.toUnsignedLong(s.rrSize());
                s = new Seg(s.ctrl(), s.rctl(), s.stag(), s.to(), s.rsvdUlp(), s.qn(), s.msn(), s.mo(), s.rrSinkStag(),
                        s.rrSinkTo(), s.rrSize(), env.writableContext(),
                        env.base() + fit(s.rrSrcTo(), size, env.regionLength()), s.payload(), 0, false);
            }
            return new Emitted(FuzzFrames.encode(s, env.crc()), s);
        }

        @Override
        public String toString() {
            return fpdu.toString();
        }
    }

    private static long fit(long to, long len, long room) {
        return len > room ? 0 : Math.floorMod(to, room - len + 1);
    }

    private static Seg withTagged(Seg s, int stag, long to) {
        return new Seg(s.ctrl(), s.rctl(), stag, to, 0, 0, 0, 0, 0, 0, 0, 0, 0, s.payload(), 0, false);
    }

    /** The captured FPDU as the model's segment (a bad captured CRC stays bad). */
    static Seg seg(Fpdu f, boolean crcOn) {
        boolean badCrc = crcOn && !f.crcValid();
        if (f.tagged()) {
            return new Seg(f.ddpControl(), f.rdmapControl(), f.stag(), f.to(), 0, 0, 0, 0, 0, 0, 0, 0, 0, f.payload(),
                    0, badCrc);
        }
        if (f.opcode() == Ddp.OP_READ_REQUEST) {
            ReadRequest r = f.readRequest();
            return new Seg(f.ddpControl(), f.rdmapControl(), 0, 0, f.invalidateStag(), f.qn(), f.msn(), f.mo(),
                    r.sinkStag(), r.sinkTo(), r.size(), r.sourceStag(), r.sourceTo(),
                    java.util.Arrays.copyOfRange(f.payload(), ReadRequest.LENGTH, f.payload().length), 0, badCrc);
        }
        return new Seg(f.ddpControl(), f.rdmapControl(), 0, 0, f.invalidateStag(), f.qn(), f.msn(), f.mo(), 0, 0, 0,
                0, 0, f.payload(), 0, badCrc);
    }

    @TestFactory
    Stream<DynamicTest> replaysOfSoftIwarpCaptures() throws IOException {
        Path dir = SharedCaptures.requireDirectory();
        List<DynamicTest> tests = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".pcap")).sorted().toList();
        }
        assertFalse(files.isEmpty(), "no pcap in " + dir);
        for (Path file : files) {
            PcapReader pcap = PcapReader.read(file);
            int n = 0;
            for (TcpStream stream : pcap.streams()) {
                IwarpConnection c = IwarpStreamDecoder.decode(stream);
                n++;
                if (!c.isMpa() || !c.accepted()) {
                    continue;
                }
                for (boolean initiator : new boolean[] {true, false}) {
                    List<Fpdu> fpdus = initiator ? c.initiatorFpdus() : c.responderFpdus();
                    if (fpdus.isEmpty()) {
                        continue;
                    }
                    List<Fpdu> some = fpdus.subList(0, Math.min(fpdus.size(), MAX_FPDUS));
                    List<Integer> chunks = chunks(stream, c, initiator);
                    for (boolean rebase : new boolean[] {false, true}) {
                        List<Step> steps = some.stream().map(f -> (Step) new Replayed(f, rebase)).toList();
                        String name = file.getFileName() + " #" + n + " " + (initiator ? "initiator" : "responder")
                                + " " + some.size() + " FPDUs" + (rebase ? ", rebased" : ", verbatim");
                        boolean crc = c.crcInUse();
                        tests.add(DynamicTest.dynamicTest(name + ", capture's segments",
                                () -> report(name, server.run(new Case(crc, false, rebase, steps, chunks, -1)))));
                        List<Step> first = steps.subList(0, Math.min(steps.size(), 8));
                        tests.add(DynamicTest.dynamicTest(name + ", the first " + first.size() + " byte by byte",
                                () -> report(name + " (" + first.size() + " byte by byte)",
                                        server.run(new Case(crc, false, rebase, first, List.of(1), -1)))));
                    }
                }
            }
        }
        return tests.stream();
    }

    private static void report(String name, FuzzServer.Result r) {
        System.out.println("replay " + name + ": " + r.model());
    }

    /** The payload sizes of the direction's TCP segments after its MPA frame: the capture's own chunking. */
    private static List<Integer> chunks(TcpStream stream, IwarpConnection c, boolean initiator) {
        boolean fromClient = initiator == c.initiatorIsClient();
        int skip = initiator ? c.request().length() : c.reply().length();
        List<Integer> out = new ArrayList<>();
        for (TcpSegment s : stream.segments()) {
            if (s.source().equals(fromClient ? stream.client() : stream.server()) && s.payload().length > 0) {
                int n = s.payload().length;
                int use = Math.min(n, skip);
                skip -= use;
                if (n - use > 0) {
                    out.add(n - use);
                }
            }
        }
        return out.isEmpty() ? List.of(1448) : out;
    }
}
