package io.jdat.tcp;

import io.jdat.tcp.FuzzFrames.Seg;
import io.jdat.tcp.FuzzServer.Case;
import io.jdat.tcp.FuzzServer.Emitted;
import io.jdat.tcp.FuzzServer.Env;
import io.jdat.tcp.FuzzServer.Step;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Black-box fuzzing of the {@code tcp} provider's frame parser over a real loopback socket: a raw peer does
 * a valid MPA handshake (revision 2, enhanced, IRD/ORD block; with or without CRC; with or without
 * peer-to-peer mode and its Write RTR), in half the cases lets the server issue an RDMA Read to it (so that
 * Read Responses have a sink to aim at), and then sends generated FPDUs to a jdat server ({@link FuzzServer}):
 * structure-aware segments whose every field is mostly plausible and sometimes hostile — opcodes 0..15,
 * T/L bits, DDP/RDMAP versions, STags (the writable region's, a local-only region's, the receive region's, a
 * stale key, random), TOs in, at and just past the region bounds, negative and near {@code Long.MAX_VALUE},
 * Read Request sizes, QN 0..3 and random, MSNs and MOs in and out of order, Terminates, ULPDU_Lengths that
 * lie, right and wrong CRCs — mixed with random byte runs, cut short at random points and delivered in
 * random chunk sizes. {@link FuzzModel} decides per case what the server must do; {@link FuzzServer#run}
 * checks it (Terminate code, EP end state within 5 s, predicted bytes, guard bytes and the local-only region
 * untouched, receive completions, Read Responses, no stderr, progress thread alive).
 *
 * <p>Three smaller properties (a third of the tries each) fuzz what comes from the wire before FPDUs do:
 * the MPA Request the server parses, the peer-to-peer RTR it waits for, and the MPA Reply a jdat initiator
 * parses (from a raw listener). Each case's oracle is in {@link FuzzServer#runMpa}, {@link FuzzServer#runRtr}
 * and {@link FuzzServer#runReply}.
 *
 * <p>Library: jqwik rather than Jazzer, because it runs on the JUnit platform surefire already uses, needs no
 * native agent on JDK 25, and its combinators make structure-aware generators (and shrinking) plain Java.
 *
 * <p>The default run is {@value #DEFAULT_TRIES} frame cases and a third as many of each handshake kind (a few
 * seconds). A longer run, on demand:
 *
 * <pre>
 *   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 mvn -q -o -f jdat/pom.xml test -Dtest=TcpFrameFuzzTest -Djdat.fuzz.tries=20000
 * </pre>
 *
 * (add {@code -Djdat.fuzz.seed=N} to replay a seed jqwik reported).
 */
class TcpFrameFuzzTest {
    static final int DEFAULT_TRIES = 500;
    private static FuzzServer server;

    @BeforeContainer
    static void start() {
        server = new FuzzServer(TcpTesting.LO);
    }

    @AfterContainer
    static void stop() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    @Property(shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.NONE) // the generators weigh their own edges
    @AddLifecycleHook(Tries.class)
    void hostileFramesNeverEscapeTheirChecks(@ForAll("cases") Case c) {
        FuzzModel m = server.run(c).model();
        Statistics.collect(m.verdict, m.verdict == FuzzModel.Verdict.TERMINATE ? Terminate.describe(m.expectedWord) : "");
    }

    @Property(shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.NONE)
    @AddLifecycleHook(MpaTries.class)
    void hostileMpaRequestsAreCheckedBeforeAConnectionExists(@ForAll("requests") MpaCase c) {
        Statistics.collect(server.runMpa(c.bytes()));
    }

    @Property(shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.NONE)
    @AddLifecycleHook(MpaTries.class)
    void hostileRtrsNeverEstablishAConnection(@ForAll boolean crc, @ForAll("rtrs") Mutation[] mutations) {
        byte[] rtr = FuzzFrames.writeRtr(crc);
        for (Mutation m : mutations) {
            rtr = m.apply(rtr);
        }
        Statistics.collect(server.runRtr(rtr, crc));
    }

    @Property(shrinking = ShrinkingMode.BOUNDED, edgeCases = EdgeCasesMode.NONE)
    @AddLifecycleHook(MpaTries.class)
    void hostileMpaRepliesNeverEstablishByMistake(@ForAll("replies") MpaCase c) {
        Statistics.collect(server.runReply(c.bytes(true)));
    }

    @Provide
    Arbitrary<MpaCase> replies() {
        return requests();
    }

    @Provide
    Arbitrary<Mutation[]> rtrs() {
        // One field at a time mostly: the length, the control bytes, the CRC, a cut, bytes after it.
        Arbitrary<Mutation> one = Combinators.combine(
                Arbitraries.frequencyOf(Tuple.of(40, Arbitraries.just(0)), Tuple.of(10, Arbitraries.just(1)),
                        Tuple.of(10, Arbitraries.just(3))),
                Arbitraries.frequencyOf(Tuple.of(40, Arbitraries.integers().between(0, 3)),
                        Tuple.of(20, Arbitraries.integers().between(4, 19)), Tuple.of(5, Arbitraries.integers())),
                Arbitraries.integers().between(0, 255))
                .as(Mutation::new);
        return one.array(Mutation[].class).ofMaxSize(2);
    }

    /** Tries from {@code -Djdat.fuzz.tries} (default {@value #DEFAULT_TRIES}), seed from {@code -Djdat.fuzz.seed}. */
    static class Tries implements AroundPropertyHook {
        int divisor() {
            return 1;
        }

        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            context.attributes().setTries(Math.max(1, Integer.getInteger("jdat.fuzz.tries", DEFAULT_TRIES) / divisor()));
            String seed = System.getProperty("jdat.fuzz.seed");
            if (seed != null && !seed.isEmpty()) {
                context.attributes().setSeed(seed);
            }
            return property.execute();
        }
    }

    /** A third of the frame cases for the MPA Requests (they have fewer fields). */
    static final class MpaTries extends Tries {
        @Override
        int divisor() {
            return 3;
        }
    }

    // ------------------------------------------------------------------ MPA Request generator

    /** One change to a well-formed MPA Request. */
    record Mutation(int kind, int at, int value) {
        byte[] apply(byte[] b) {
            return switch (kind) {
                case 0 -> { // one byte anywhere
                    byte[] c = b.clone();
                    if (c.length > 0) {
                        c[Math.floorMod(at, c.length)] = (byte) value;
                    }
                    yield c;
                }
                case 1 -> java.util.Arrays.copyOf(b, Math.floorMod(at, b.length + 1)); // cut short
                case 2 -> { // PD_Length lies
                    byte[] c = b.clone();
                    if (c.length >= Mpa.HEADER_LENGTH) {
                        int v = value % 3 == 0 ? Math.floorMod(value, 1024) : Math.floorMod(value, 65536);
                        c[18] = (byte) (v >>> 8);
                        c[19] = (byte) v;
                    }
                    yield c;
                }
                case 3 -> { // bytes after it (a pipelined FPDU, or noise)
                    byte[] c = java.util.Arrays.copyOf(b, b.length + Math.floorMod(at, 64) + 1);
                    new SplittableRandom(value).nextBytes(c);
                    System.arraycopy(b, 0, c, 0, b.length);
                    yield c;
                }
                default -> { // the flags or revision byte
                    byte[] c = b.clone();
                    if (c.length >= Mpa.HEADER_LENGTH) {
                        c[16 + (at & 1)] = (byte) value;
                    }
                    yield c;
                }
            };
        }
    }

    /** A well-formed Request (revision, flags, private data) and the mutations applied to it. */
    record MpaCase(int revision, boolean crc, boolean markers, boolean p2p, int pdLength, long seed,
            java.util.List<Mutation> mutations) {
        byte[] bytes() {
            return bytes(false);
        }

        /** As a Request, or as a Reply (where the seed also decides the reject bit and the RTR chosen). */
        byte[] bytes(boolean reply) {
            byte[] pd = new byte[pdLength];
            SplittableRandom rnd = new SplittableRandom(seed);
            rnd.nextBytes(pd);
            int flags = (crc ? Mpa.FLAG_CRC : 0) | (markers ? Mpa.FLAG_MARKERS : 0)
                    | (reply && rnd.nextInt(8) == 0 ? Mpa.FLAG_REJECT : 0);
            int rtr = !reply || rnd.nextInt(6) != 0 ? Mpa.V2_WRITE_RTR : rnd.nextBoolean() ? Mpa.V2_READ_RTR : 0;
            java.nio.ByteBuffer b = Mpa.encode(reply, flags, revision, 4 | (p2p ? Mpa.V2_PEER_TO_PEER : 0),
                    4 | (p2p ? rtr : 0), pd);
            byte[] out = new byte[b.remaining()];
            b.get(out);
            for (Mutation m : mutations) {
                out = m.apply(out);
            }
            return out;
        }
    }

    @Provide
    Arbitrary<MpaCase> requests() {
        Arbitrary<Mutation> mutation = Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.integers(),
                Arbitraries.integers()).as(Mutation::new);
        return Combinators.combine(
                mostly(Arbitraries.just(2), 75, Arbitraries.of(1, 0, 3, 255)),
                Arbitraries.of(true, false),
                mostly(Arbitraries.just(false), 90, Arbitraries.just(true)),
                Arbitraries.of(true, false),
                Arbitraries.frequencyOf(Tuple.of(80, Arbitraries.integers().between(0, 40)),
                        Tuple.of(20, Arbitraries.integers().between(41, 600))),
                Arbitraries.longs(),
                mutation.list().ofMaxSize(3))
                .as(MpaCase::new);
    }

    // ------------------------------------------------------------------ generators

    enum Kind { WRITE, READ_REQUEST, SEND, SEND_SE, SEND_INVALIDATE, READ_RESPONSE, TERMINATE, OPCODE }

    enum StagChoice { WRITABLE, LOCAL_ONLY, RECV, STALE_KEY, ZERO, RANDOM }

    /** The control bytes and the queue. {@code qn} -1: the opcode's own queue. */
    record Head(Kind kind, int opcode, boolean flipTagged, boolean notLast, int ddpVersion, int rdmapVersion,
            boolean reservedBits, int qn) {
    }

    /** STag, TO and Read Request size, as choices relative to the writable region. */
    record Target(StagChoice stag, int stagRandom, int toMode, long toRaw, int sizeMode, int sizeRaw) {
    }

    /** MSN and MO offsets from the expected ones, payload, length lie, CRC. */
    record Body(int msnDelta, int moDelta, int payloadLength, long seed, int lengthMode, int lengthRaw,
            boolean badCrc) {
    }

    /** One DDP segment, made against the server's current state (so that "the expected MSN" means something). */
    record SegStep(Head h, Target t, Body b) implements Step {
        @Override
        public Emitted emit(Env env, FuzzModel m) {
            SplittableRandom rnd = new SplittableRandom(b.seed());
            int opcode = switch (h.kind()) {
                case WRITE -> Ddp.OP_WRITE;
                case READ_REQUEST -> Ddp.OP_READ_REQUEST;
                case SEND -> Ddp.OP_SEND;
                case SEND_SE -> Ddp.OP_SEND_SE;
                case SEND_INVALIDATE -> rnd.nextBoolean() ? Ddp.OP_SEND_INVALIDATE : Ddp.OP_SEND_SE_INVALIDATE;
                case READ_RESPONSE -> Ddp.OP_READ_RESPONSE;
                case TERMINATE -> Ddp.OP_TERMINATE;
                case OPCODE -> h.opcode() & 0x0F;
            };
            boolean naturallyTagged = h.kind() == Kind.WRITE || h.kind() == Kind.READ_RESPONSE;
            boolean tagged = naturallyTagged != h.flipTagged();
            boolean send = h.kind() == Kind.SEND || h.kind() == Kind.SEND_SE || h.kind() == Kind.SEND_INVALIDATE;
            boolean notLast = h.notLast() && (send || h.kind() == Kind.READ_RESPONSE || h.reservedBits());
            int ctrl = (tagged ? Ddp.CTRL_TAGGED : 0) | (notLast ? 0 : Ddp.CTRL_LAST) | (h.ddpVersion() & 3)
                    | (h.reservedBits() ? rnd.nextInt() & Ddp.CTRL_RESERVED : 0);
            int rctl = (h.rdmapVersion() & 3) << 6 | (h.reservedBits() ? rnd.nextInt() & 0x30 : 0) | opcode;

            int len = switch (h.kind()) {
                case READ_REQUEST -> b.payloadLength() % 5 == 1 ? Math.min(b.payloadLength(), 12) : 0;
                case TERMINATE -> b.payloadLength() % 130;
                default -> b.payloadLength();
            };
            byte[] payload = new byte[len];
            rnd.nextBytes(payload);
            if (h.kind() == Kind.TERMINATE && len >= 4) {
                payload[0] = (byte) (rnd.nextInt(3) << 4 | rnd.nextInt(4)); // a plausible layer and type
            }
            long size = switch (t.sizeMode()) {
                case 0 -> Integer.remainderUnsigned(t.sizeRaw(), 513);
                case 1 -> 0;
                case 2 -> env.regionLength();
                case 3 -> env.regionLength() + 1;
                default -> Integer.toUnsignedLong(t.sizeRaw());
            };
            long span = h.kind() == Kind.READ_REQUEST ? size : len; // what the TO must leave room for
            // A Read Response aims at the server's Read sink (TO from 0), everything else at the writable region.
            boolean response = h.kind() == Kind.READ_RESPONSE;
            long base = response ? 0 : env.base();
            long r = response ? env.readLength() : env.regionLength();
            long to = switch (t.toMode()) {
                case 0 -> base + (span <= r ? Math.floorMod(t.toRaw(), r - span + 1) : 0);
                case 1 -> base + r - span;
                case 2 -> base + r - span + 1;
                case 3 -> base + t.toRaw() % 8192;
                default -> t.toRaw();
            };
            int stag = switch (t.stag()) {
                case WRITABLE -> response ? env.readSinkStag() : env.writableContext();
                case LOCAL_ONLY -> env.localContext();
                case RECV -> env.recvContext();
                case STALE_KEY -> env.writableContext() ^ (1 + (t.stagRandom() & 0x7F));
                case ZERO -> 0;
                case RANDOM -> t.stagRandom();
            };
            int naturalQn = send ? Ddp.QN_SEND
                    : h.kind() == Kind.READ_REQUEST ? Ddp.QN_READ_REQUEST
                    : h.kind() == Kind.TERMINATE ? Ddp.QN_TERMINATE : rnd.nextInt(4);
            int qn = h.qn() == -1 ? naturalQn : h.qn();
            int msn = (send ? m.sendMsn : h.kind() == Kind.READ_REQUEST ? m.readMsn : 1) + b.msnDelta();
            int mo = (send ? m.expectedMo() : 0) + b.moDelta();
            int rsvdUlp = h.reservedBits() ? rnd.nextInt() : 0;
            Seg s = new Seg(ctrl, rctl, stag, to, rsvdUlp, qn, msn, mo, rnd.nextInt(), rnd.nextLong(), (int) size, stag,
                    to, payload, 0, b.badCrc());
            int honest = s.ulpduLength();
            int declared = switch (b.lengthMode()) {
                case 0 -> honest;
                case 1 -> Math.floorMod(b.lengthRaw(), s.headerLength()); // shorter than the header
                case 2 -> honest + (b.lengthRaw() % 8 == 0 ? 1 : b.lengthRaw() % 8); // a little off
                default -> b.lengthRaw() & 0xFFFF; // anything
            };
            s = s.withLengthDelta(declared - honest);
            return new Emitted(FuzzFrames.encode(s, env.crc()), s);
        }
    }

    /** Random bytes. */
    record RawStep(int length, long seed) implements Step {
        @Override
        public Emitted emit(Env env, FuzzModel m) {
            byte[] b = new byte[length];
            new SplittableRandom(seed).nextBytes(b);
            return new Emitted(b, null);
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                Tuple.of(94, segments()),
                Tuple.of(6, Combinators.combine(Arbitraries.integers().between(1, 64), Arbitraries.longs())
                        .as(RawStep::new)));
        return Combinators.combine(
                Arbitraries.of(true, false),
                Arbitraries.of(true, false),
                Arbitraries.of(true, false),
                step.list().ofMinSize(1).ofMaxSize(8),
                Arbitraries.integers().between(1, 300).list().ofMaxSize(6),
                Arbitraries.frequencyOf(Tuple.of(88, Arbitraries.just(-1)),
                        Tuple.of(12, Arbitraries.integers().between(0, 999))))
                .as(Case::new);
    }

    private static Arbitrary<Step> segments() {
        Arbitrary<Head> head = Combinators.combine(
                Arbitraries.frequencyOf(
                        Tuple.of(32, Arbitraries.just(Kind.WRITE)),
                        Tuple.of(14, Arbitraries.just(Kind.READ_REQUEST)),
                        Tuple.of(28, Arbitraries.just(Kind.SEND)),
                        Tuple.of(8, Arbitraries.just(Kind.SEND_SE)),
                        Tuple.of(3, Arbitraries.just(Kind.SEND_INVALIDATE)),
                        Tuple.of(8, Arbitraries.just(Kind.READ_RESPONSE)),
                        Tuple.of(6, Arbitraries.just(Kind.TERMINATE)),
                        Tuple.of(5, Arbitraries.just(Kind.OPCODE))),
                Arbitraries.integers().between(0, 15),
                mostly(Arbitraries.just(false), 98, Arbitraries.just(true)),
                mostly(Arbitraries.just(false), 80, Arbitraries.just(true)),
                mostly(Arbitraries.just(1), 97, Arbitraries.of(0, 2, 3)),
                mostly(Arbitraries.just(1), 97, Arbitraries.of(0, 2, 3)),
                mostly(Arbitraries.just(false), 90, Arbitraries.just(true)),
                mostly(Arbitraries.just(-1), 95, Arbitraries.frequencyOf(
                        Tuple.of(3, Arbitraries.integers().between(0, 3)), Tuple.of(1, Arbitraries.integers()))))
                .as(Head::new);
        Arbitrary<Target> target = Combinators.combine(
                Arbitraries.frequencyOf(
                        Tuple.of(80, Arbitraries.just(StagChoice.WRITABLE)),
                        Tuple.of(5, Arbitraries.just(StagChoice.LOCAL_ONLY)),
                        Tuple.of(3, Arbitraries.just(StagChoice.RECV)),
                        Tuple.of(4, Arbitraries.just(StagChoice.STALE_KEY)),
                        Tuple.of(3, Arbitraries.just(StagChoice.ZERO)),
                        Tuple.of(5, Arbitraries.just(StagChoice.RANDOM))),
                Arbitraries.integers(),
                Arbitraries.frequencyOf(
                        Tuple.of(74, Arbitraries.just(0)),
                        Tuple.of(10, Arbitraries.just(1)),
                        Tuple.of(6, Arbitraries.just(2)),
                        Tuple.of(5, Arbitraries.just(3)),
                        Tuple.of(5, Arbitraries.just(4))),
                Arbitraries.oneOf(Arbitraries.longs().between(-8192, 8192),
                        Arbitraries.of(Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE - 4095, Long.MIN_VALUE,
                                Long.MIN_VALUE + 1, -1L, 0L, 1L << 63 >>> 1, 0xFFFF_FFFFL),
                        Arbitraries.longs()),
                Arbitraries.frequencyOf(
                        Tuple.of(66, Arbitraries.just(0)),
                        Tuple.of(10, Arbitraries.just(1)),
                        Tuple.of(12, Arbitraries.just(2)),
                        Tuple.of(7, Arbitraries.just(3)),
                        Tuple.of(5, Arbitraries.just(4))),
                Arbitraries.integers())
                .as(Target::new);
        Arbitrary<Body> body = Combinators.combine(
                mostly(Arbitraries.just(0), 95, Arbitraries.oneOf(Arbitraries.integers().between(-2, 2),
                        Arbitraries.integers())),
                mostly(Arbitraries.just(0), 96, Arbitraries.oneOf(Arbitraries.integers().between(-16, 16),
                        Arbitraries.integers())),
                Arbitraries.frequencyOf(
                        Tuple.of(55, Arbitraries.integers().between(0, 64)),
                        Tuple.of(27, Arbitraries.integers().between(65, 600)),
                        Tuple.of(12, Arbitraries.integers().between(601, 3100)),
                        Tuple.of(6, Arbitraries.integers().between(3101, 4200))),
                Arbitraries.longs(),
                Arbitraries.frequencyOf(
                        Tuple.of(96, Arbitraries.just(0)),
                        Tuple.of(2, Arbitraries.just(1)),
                        Tuple.of(1, Arbitraries.just(2)),
                        Tuple.of(1, Arbitraries.just(3))),
                Arbitraries.integers(),
                mostly(Arbitraries.just(false), 96, Arbitraries.just(true)))
                .as(Body::new);
        return Combinators.combine(head, target, body).as(SegStep::new);
    }

    private static <T> Arbitrary<T> mostly(Arbitrary<T> usual, int percent, Arbitrary<T> other) {
        return Arbitraries.frequencyOf(Tuple.of(percent, usual), Tuple.of(100 - percent, other));
    }
}
