package io.jdat.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.jdat.DtoCompletionStatus;
import io.jdat.EventNumber;
import io.jdat.tcp.FuzzFrames.Seg;
import io.jdat.tcp.FuzzServer.Case;
import io.jdat.tcp.FuzzServer.Emitted;
import io.jdat.tcp.FuzzServer.Env;
import io.jdat.tcp.FuzzServer.Result;
import io.jdat.tcp.FuzzServer.Step;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hostile frames with one known fault each, against a real {@code tcp} server over loopback (the harness of
 * {@link TcpFrameFuzzTest}): each must end the connection with exactly the Terminate code of RFC 5040/5041/
 * 5044 that IWARP.md §5 lists, and never touch memory outside a registered region (the harness checks guard
 * bytes, the local-only region and every predicted byte after each case).
 */
class TcpFuzzExamplesTest {
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

    // ------------------------------------------------------------------ helpers

    private static Step seg(Function<Env, Seg> f) {
        return (env, m) -> {
            Seg s = f.apply(env);
            return new Emitted(FuzzFrames.encode(s, env.crc()), s);
        };
    }

    private static Step segM(BiFunction<Env, FuzzModel, Seg> f) {
        return (env, m) -> {
            Seg s = f.apply(env, m);
            return new Emitted(FuzzFrames.encode(s, env.crc()), s);
        };
    }

    /** A Send segment with the MSN and MO the server expects next. */
    private static Step send(int length, boolean last) {
        return segM((env, m) -> FuzzFrames.untagged(Ddp.OP_SEND, last, Ddp.QN_SEND, m.sendMsn, m.expectedMo(),
                bytes(length, 1)));
    }

    private static Step write(long offset, int length) {
        return seg(env -> FuzzFrames.tagged(Ddp.OP_WRITE, true, env.writableContext(), env.base() + offset,
                bytes(length, 2)));
    }

    private static Step read(int sinkStag, int size, Function<Env, Integer> stag, long offset) {
        return segM((env, m) -> FuzzFrames.readRequest(m.readMsn, sinkStag, 0x1000, size, stag.apply(env),
                env.base() + offset));
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 7 + seed * 101 + 1);
        }
        return b;
    }

    private static Result run(boolean crc, Step... steps) {
        return server.run(new Case(crc, false, List.of(steps), List.of(), -1));
    }

    private static void assertTerminate(Result r, int layer, int type, int code) {
        assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, r.serverEvent());
        Integer w = r.terminateWord();
        assertNotNull(w, "no Terminate from the server");
        assertEquals(Terminate.describe(Terminate.controlWord(layer, type, code)), Terminate.describe(w));
    }

    // ------------------------------------------------------------------ valid traffic

    @Test
    void validWriteSendAndReadKeepTheConnection() {
        Result r = run(false, write(10, 100), send(700, false), send(1200, true),
                read(0x77, 64, Env::writableContext, 10));
        assertEquals(FuzzModel.Verdict.VALID, r.model().verdict);
        assertEquals(EventNumber.CONNECTION_EVENT_DISCONNECTED, r.serverEvent());
        assertNull(r.terminateWord());
        assertEquals(DtoCompletionStatus.SUCCESS, r.recvs().get(0).status());
        assertEquals(1900, r.recvs().get(0).transferredLength());
    }

    @Test
    void largePayloadsGoStraightFromTheSocketIntoRegionAndReceivePieces() {
        // >= TcpReceiver.DIRECT_MIN: read straight into the target; the Send spans all three receive pieces.
        Result r = run(true, write(1000, 3000), send(3064, true), write(0, 4096));
        assertEquals(FuzzModel.Verdict.VALID, r.model().verdict);
        assertEquals(3064, r.recvs().get(0).transferredLength());
    }

    @Test
    void smallFpdusFromTheServerCarryTheirCrc() {
        // Regression: with CRC on, TcpTransmitter.finishSmall put the CRC past the buffer's limit, so every
        // small FPDU the server sent (Read Response, Terminate, short Send) failed as "source memory went away".
        Result r = run(true, write(64, 48), read(0x42, 48, Env::writableContext, 64));
        assertEquals(FuzzModel.Verdict.VALID, r.model().verdict);
        assertEquals(2, r.stream().fpdus().size(), "the Read Response and the final one, CRCs checked");
        Result t = run(true, read(0x42, 48, Env::localContext, 64));
        assertTerminate(t, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION, Terminate.RDMAP_INVALID_STAG);
    }

    @Test
    void zeroLengthAccessesNameNoMemory() {
        Result r = run(false, seg(env -> FuzzFrames.tagged(Ddp.OP_WRITE, true, 0xDEAD, Long.MIN_VALUE, new byte[0])),
                read(0x55, 0, env -> 0x12345678, -5));
        assertEquals(FuzzModel.Verdict.VALID, r.model().verdict);
    }

    @Test
    void aTerminateFromThePeerBreaksWithoutAnswer() {
        Result r = run(true, seg(env -> FuzzFrames.untagged(Ddp.OP_TERMINATE, true, Ddp.QN_TERMINATE, 1, 0,
                new byte[] {0x12, 0x00, 0x03, 0x00})));
        assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, r.serverEvent());
        assertNull(r.terminateWord());
    }

    // ------------------------------------------------------------------ one fault each

    @Test
    void badDdpVersionUntagged() {
        Result r = run(false, seg(env -> {
            Seg s = FuzzFrames.untagged(Ddp.OP_SEND, true, Ddp.QN_SEND, 1, 0, bytes(8, 3));
            return new Seg(s.ctrl() & ~3 | 2, s.rctl(), 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, s.payload(), 0, false);
        }));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_BAD_VERSION);
    }

    @Test
    void badDdpVersionTagged() {
        Result r = run(true, write(0, 8), seg(env -> {
            Seg s = FuzzFrames.tagged(Ddp.OP_WRITE, true, env.writableContext(), env.base(), bytes(8, 3));
            return new Seg(s.ctrl() & ~3, s.rctl(), s.stag(), s.to(), 0, 0, 0, 0, 0, 0, 0, 0, 0, s.payload(), 0, false);
        }));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_BAD_VERSION);
    }

    @Test
    void badRdmapVersion() {
        Result r = run(false, seg(env -> {
            Seg s = FuzzFrames.tagged(Ddp.OP_WRITE, true, env.writableContext(), env.base(), bytes(8, 3));
            return new Seg(s.ctrl(), s.rctl() & 0x3F | 0x80, s.stag(), s.to(), 0, 0, 0, 0, 0, 0, 0, 0, 0, s.payload(), 0,
                    false);
        }));
        assertTerminate(r, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_BAD_VERSION);
    }

    @Test
    void ulpduShorterThanItsHeader() {
        Result r = run(false, seg(env -> FuzzFrames.untagged(Ddp.OP_SEND, true, Ddp.QN_SEND, 1, 0, bytes(8, 3))
                .withLengthDelta(-20)));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_LOCAL_CATASTROPHIC, 0);
    }

    @Test
    void writeToAnUnknownStag() {
        Result r = run(false, seg(env -> FuzzFrames.tagged(Ddp.OP_WRITE, true, env.writableContext() ^ 0x5A00,
                env.base(), bytes(16, 3))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
    }

    @Test
    void writeToAStaleKeyOfTheRegion() {
        Result r = run(false, seg(env -> FuzzFrames.tagged(Ddp.OP_WRITE, true, env.writableContext() ^ 1, env.base(),
                bytes(16, 3))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
    }

    @Test
    void writeToALocalOnlyRegion() {
        Result r = run(true, seg(env -> FuzzFrames.tagged(Ddp.OP_WRITE, true, env.localContext(), env.base(),
                bytes(16, 3))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
    }

    @Test
    void writeOneByteBeyondTheRegion() {
        // Regression: was "invalid STag" (the core's resolveRemote says only ACCESS_ERROR); the STag and the
        // start are valid, so it is a base/bounds violation (RFC 5041 §7.2 code 0x01).
        Result r = run(false, write(FuzzServer.REGION - 15, 16));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_BASE_BOUNDS);
    }

    @Test
    void writeStartingBeforeTheRegion() {
        // Nothing of it is inside: the provider cannot tell this from a foreign STag and reports invalid STag.
        Result r = run(false, write(-1, 16));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
    }

    @Test
    void writeWithATaggedOffsetThatOverflows() {
        Result r = run(false, seg(env -> FuzzFrames.tagged(Ddp.OP_WRITE, true, env.writableContext(),
                Long.MAX_VALUE - 4, bytes(16, 3))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
        Result n = run(false, seg(env -> FuzzFrames.tagged(Ddp.OP_WRITE, true, env.writableContext(), -8,
                bytes(16, 3))));
        assertTerminate(n, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
    }

    @Test
    void readRequestBeyondTheRegion() {
        // Regression: base/bounds (RFC 5040 §4.8 code 0x01), was "invalid STag".
        Result r = run(false, read(0x99, 64, Env::writableContext, FuzzServer.REGION - 32));
        assertTerminate(r, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION, Terminate.RDMAP_BASE_BOUNDS);
    }

    @Test
    void readRequestOfAHugeSize() {
        Result r = run(true, read(0x99, -1, Env::writableContext, 0));
        assertTerminate(r, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION, Terminate.RDMAP_BASE_BOUNDS);
    }

    @Test
    void readRequestOfAnUnknownStag() {
        Result r = run(false, read(0x99, 16, env -> 0x7777_7700, 0));
        assertTerminate(r, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION, Terminate.RDMAP_INVALID_STAG);
    }

    @Test
    void readRequestOfALocalOnlyRegion() {
        Result r = run(false, read(0x99, 16, Env::localContext, 0));
        assertTerminate(r, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_PROTECTION, Terminate.RDMAP_INVALID_STAG);
    }

    @Test
    void badCrc() {
        Result r = run(true, write(0, 32), segM((env, m) -> FuzzFrames.untagged(Ddp.OP_SEND, true, Ddp.QN_SEND,
                m.sendMsn, 0, bytes(100, 4)).withCrc(true)));
        assertTerminate(r, Terminate.LAYER_LLP, 0, Terminate.LLP_CRC);
    }

    @Test
    void aWrongCrcFieldIsIgnoredWithoutCrc() {
        Result r = run(false, seg(env -> FuzzFrames.tagged(Ddp.OP_WRITE, true, env.writableContext(), env.base(),
                bytes(32, 5)).withCrc(true)));
        assertEquals(FuzzModel.Verdict.VALID, r.model().verdict);
    }

    @Test
    void unknownQueueNumber() {
        Result r = run(false, seg(env -> FuzzFrames.untagged(Ddp.OP_SEND, true, 3, 1, 0, bytes(8, 3))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_QN);
        Result r2 = run(true, seg(env -> FuzzFrames.untagged(Ddp.OP_WRITE, true, 0x80000001, 1, 0, bytes(8, 3))));
        assertTerminate(r2, Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_QN);
    }

    @Test
    void sendMsnOutOfOrder() {
        Result r = run(false, send(10, true), seg(env -> FuzzFrames.untagged(Ddp.OP_SEND, true, Ddp.QN_SEND, 3, 0,
                bytes(8, 3))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_MSN_RANGE);
        assertEquals(DtoCompletionStatus.SUCCESS, r.recvs().get(0).status());
        assertEquals(DtoCompletionStatus.ERR_FLUSHED, r.recvs().get(1).status());
    }

    @Test
    void readRequestMsnOutOfOrder() {
        Result r = run(false, segM((env, m) -> FuzzFrames.readRequest(2, 1, 0, 8, env.writableContext(), env.base())));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_MSN_RANGE);
    }

    @Test
    void sendSegmentAtTheWrongOffset() {
        Result r = run(false, send(100, false), segM((env, m) -> FuzzFrames.untagged(Ddp.OP_SEND, true, Ddp.QN_SEND,
                m.sendMsn, 99, bytes(8, 3))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_MO);
        Result r2 = run(false, seg(env -> FuzzFrames.untagged(Ddp.OP_SEND, true, Ddp.QN_SEND, 1, 4, bytes(8, 3))));
        assertTerminate(r2, Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_INVALID_MO);
    }

    @Test
    void sendLongerThanItsReceive() {
        Result r = run(true, send(3000, false), send(100, true));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_UNTAGGED, Terminate.DDP_U_TOO_LONG);
        assertEquals(DtoCompletionStatus.ERR_LOCAL_LENGTH, r.recvs().get(0).status());
    }

    @Test
    void readResponseWithoutARead() {
        Result r = run(false, seg(env -> FuzzFrames.tagged(Ddp.OP_READ_RESPONSE, true, 0x100, 0, bytes(8, 3))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
    }

    private static Result runWithServerRead(boolean crc, Step... steps) {
        return server.run(new Case(crc, false, true, List.of(steps), List.of(), -1));
    }

    private static Step response(long to, int length, boolean last) {
        return seg(env -> FuzzFrames.tagged(Ddp.OP_READ_RESPONSE, last, env.readSinkStag(), to, bytes(length, 6)));
    }

    @Test
    void readResponsesFillTheServersReadSinkAcrossItsPieces() {
        Result r = runWithServerRead(true, response(0, 250, false), response(250, FuzzServer.READ_LENGTH - 250, true));
        assertEquals(FuzzModel.Verdict.VALID, r.model().verdict);
        assertEquals(DtoCompletionStatus.SUCCESS, r.read().status());
        assertEquals(FuzzServer.READ_LENGTH, r.read().transferredLength());
    }

    @Test
    void readResponseBeyondItsSink() {
        Result r = runWithServerRead(false, response(FuzzServer.READ_LENGTH - 10, 11, true));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_BASE_BOUNDS);
        Result n = runWithServerRead(false, response(-1, 8, true));
        assertTerminate(n, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_BASE_BOUNDS);
    }

    @Test
    void readResponseIntoTheSinkPastWhatTheReadAskedFor() {
        // The sink (700 bytes) is longer than the Read (640): the rest of it is not the peer's to write.
        Result r = runWithServerRead(false, response(FuzzServer.READ_LENGTH - 8, 16, true));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_BASE_BOUNDS);
    }

    @Test
    void readResponseToAnotherStag() {
        Result r = runWithServerRead(false, seg(env -> FuzzFrames.tagged(Ddp.OP_READ_RESPONSE, true,
                env.readSinkStag() ^ 0x100, 0, bytes(8, 6))));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
    }

    @Test
    void readResponseAfterTheLastOne() {
        Result r = runWithServerRead(false, response(0, FuzzServer.READ_LENGTH, true), response(0, 8, true));
        assertTerminate(r, Terminate.LAYER_DDP, Terminate.DDP_TAGGED, Terminate.DDP_T_INVALID_STAG);
        assertEquals(DtoCompletionStatus.SUCCESS, r.read().status());
    }

    @Test
    void sendAsATaggedMessage() {
        Result r = run(false, seg(env -> FuzzFrames.tagged(Ddp.OP_SEND, true, env.writableContext(), env.base(),
                bytes(8, 3))));
        assertTerminate(r, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE);
    }

    @Test
    void sendWithInvalidateIsNotDat12() {
        Result r = run(false, seg(env -> FuzzFrames.untagged(Ddp.OP_SEND_INVALIDATE, true, Ddp.QN_SEND, 1, 0,
                bytes(8, 3))));
        assertTerminate(r, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE);
    }

    @Test
    void unknownOpcodeOnAKnownQueue() {
        Result r = run(false, seg(env -> FuzzFrames.untagged(0xB, true, Ddp.QN_SEND, 1, 0, bytes(8, 3))));
        assertTerminate(r, Terminate.LAYER_RDMAP, Terminate.RDMAP_REMOTE_OPERATION, Terminate.RDMAP_UNEXPECTED_OPCODE);
    }

    @Test
    void terminateOfTheWrongSize() {
        Result r = run(false, seg(env -> FuzzFrames.untagged(Ddp.OP_TERMINATE, true, Ddp.QN_TERMINATE, 1, 0,
                new byte[2])));
        assertTerminate(r, Terminate.LAYER_LLP, 0, Terminate.LLP_BAD_FRAME);
    }

    @Test
    void theWriteRtrEstablishesPeerToPeerSetup() {
        assertEquals("established", server.runRtr(FuzzFrames.writeRtr(true), true));
        assertEquals("established", server.runRtr(FuzzFrames.writeRtr(false), false));
    }

    @Test
    void anRtrWithABadVersionDoesNotEstablish() {
        // Regression: MpaPassive.readRtr checked T, L and the opcode but not the DDP and RDMAP versions, so an
        // FPDU of DDP version 0 (or RDMAP version 2) was taken for the ready-to-receive message.
        byte[] badDdp = FuzzFrames.encode(FuzzFrames.writeRtrSeg().withCtrl(0xC0), false);
        assertEquals("accept failed", server.runRtr(badDdp, false));
        byte[] badRdmap = FuzzFrames.encode(FuzzFrames.writeRtrSeg().withRctl(0x80), true);
        assertEquals("accept failed", server.runRtr(badRdmap, true));
    }

    @Test
    void anRtrThatIsNotAZeroLengthWriteDoesNotEstablish() {
        assertEquals("accept failed", server.runRtr(FuzzFrames.encode(FuzzFrames.untagged(Ddp.OP_SEND, true,
                Ddp.QN_SEND, 1, 0, new byte[0]), false), false));
        assertEquals("accept failed", server.runRtr(FuzzFrames.encode(FuzzFrames.tagged(Ddp.OP_WRITE, true, 0, 0,
                new byte[4]), true), true));
        assertEquals("accept failed", server.runRtr(FuzzFrames.encode(FuzzFrames.writeRtrSeg().withCrc(true), true),
                true));
    }

    @Test
    void streamCutInsideAValidFpduBreaksWithoutTerminate() {
        Result r = server.run(new Case(false, true, List.of(write(0, 200)), List.of(7, 13), 500));
        assertEquals(EventNumber.CONNECTION_EVENT_BROKEN, r.serverEvent());
        assertNull(r.terminateWord());
    }
}
