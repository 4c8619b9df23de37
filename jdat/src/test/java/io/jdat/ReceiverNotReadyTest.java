package io.jdat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdat.testing.Pair;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A sender that outruns its receiver on {@code mem}: sends that find no posted receive wait for one and
 * go as soon as the receiver re-posts (regression: a receive posted while a send was being queued was
 * missed, and the send failed with RECEIVER_NOT_READY two seconds later).
 */
class ReceiverNotReadyTest {
    @Test
    @DisplayName("SND-09 SND-12 RCV-07: 200 000 sends racing a receiver that re-posts one buffer at a time all arrive in order")
    void senderOutrunsReceiver() throws Exception {
        EpAttr attr = new EpAttr().maxMessageSize(1 << 20).maxRdmaSize(1 << 20).maxRecvDtos(4).maxRequestDtos(64)
                .maxRecvIov(1).maxRequestIov(1).maxRdmaReadIov(1).maxRdmaWriteIov(1);
        try (Pair p = new Pair(attr, 256).connect()) {
            int n = 200_000;
            LmrTriplet[] recv = {p.server.lmr.triplet(0, 8)};
            p.server.ep.postRecv(1, recv, 0, 0);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread receiver = new Thread(() -> {
                try {
                    DatEvent e = new DatEvent();
                    for (long i = 0; i < n; i++) {
                        long deadline = System.nanoTime() + 10_000_000_000L;
                        while (!p.server.recvEvd.dequeue(e)) {
                            if (System.nanoTime() > deadline) {
                                throw new AssertionError("message " + i + " never arrived");
                            }
                            Thread.onSpinWait();
                        }
                        assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "receive " + i);
                        assertEquals(i, p.server.buf.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0), "order");
                        p.server.ep.postRecv(1, recv, i + 1, 0);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            receiver.setDaemon(true);
            receiver.start();
            LmrTriplet[] send = {p.client.lmr.triplet(0, 8)};
            DatEvent e = new DatEvent();
            int outstanding = 0;
            for (long i = 0; i < n; i++) {
                while (outstanding > 0 && p.client.reqEvd.dequeue(e)) {
                    assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "send completion");
                    outstanding--;
                }
                // One message in flight at a time, so the source buffer is free again; the receiver lags
                // behind by design.
                while (outstanding > 0) {
                    if (p.client.reqEvd.waitFor(5_000_000, 1, e)) {
                        assertEquals(DtoCompletionStatus.SUCCESS, e.status(), "send completion " + i);
                        outstanding--;
                    }
                }
                p.client.buf.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, i);
                p.client.ep.postSend(1, send, i, 0);
                outstanding++;
            }
            receiver.join(60_000);
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(EpState.CONNECTED, p.client.ep.getStatus().epState());
        }
    }
}
