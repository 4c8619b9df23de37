package io.jdat.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jdat.DatException;
import io.jdat.DatReturnType;
import io.jdat.EpAttr;
import io.jdat.EvdFlags;
import io.jdat.EventDispatcher;
import io.jdat.IaAttr;
import io.jdat.ProtectionZone;
import io.jdat.spi.TransportLimits;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A transport whose messages have a segment limit of their own ({@link TransportLimits#maxMessageIov()}, a NIC's
 * {@code max_sge}: siw 6): a Send or a receive cannot be split, so the limit is the IA's
 * {@code max_iov_segments_per_dto} and bounds {@code max_request_iov} and {@code max_recv_iov} (EPC-18: beyond it,
 * {@code DAT_INVALID_PARAMETER} at {@code dat_ep_create}), the defaults included; RDMA segments stay the core's.
 */
class MessageIovLimitTest {
    /** Opens, listens and connects nowhere: only its limits matter here. */
    private static final class SixSegments extends InertTransport {
        @Override
        public TransportLimits limits() {
            return new TransportLimits(1 << 20, 1 << 20, 64, 4, 4, 0, "six", 6);
        }
    }

    private static final OpenIaCount UNCOUNTED = new OpenIaCount() {
        @Override
        public void acquire(String iaName) {
        }

        @Override
        public void release(String iaName) {
        }
    };

    @Test
    @DisplayName("EPC-13 EPC-18: max_sge 6 is max_iov_segments_per_dto and bounds max_request_iov and max_recv_iov")
    void messageSegmentsBoundedByTransport() {
        CoreIa ia = CoreIa.open("six", new SixSegments(), 8, null, UNCOUNTED);
        try {
            IaAttr a = ia.query(IaAttr.FIELD_ALL, 0).iaAttr();
            assertEquals(6, a.maxIovSegmentsPerDto());
            assertEquals(CoreIa.MAX_IOV, a.maxIovSegmentsPerRdmaRead(), "an RDMA Read may be split");
            assertEquals(CoreIa.MAX_IOV, a.maxIovSegmentsPerRdmaWrite(), "an RDMA Write may be split");
            EpAttr d = ia.defaultEpAttr();
            assertEquals(6, d.maxRequestIov());
            assertEquals(6, d.maxRecvIov());
            ProtectionZone pz = ProtectionZone.create(ia);
            EventDispatcher dto = EventDispatcher.create(ia, 8, null, EvdFlags.DTO);
            EventDispatcher conn = EventDispatcher.create(ia, 8, null, EvdFlags.CONNECTION);
            ia.epCreate(pz, dto, dto, conn, d.copy()).free();
            ia.epCreate(pz, dto, dto, conn, d.copy().maxRdmaWriteIov(8).maxRdmaReadIov(8)).free();
            DatException send = assertThrows(DatException.class,
                    () -> ia.epCreate(pz, dto, dto, conn, d.copy().maxRequestIov(7)));
            assertEquals(DatReturnType.INVALID_PARAMETER, send.type(), send.getMessage());
            DatException recv = assertThrows(DatException.class,
                    () -> ia.epCreate(pz, dto, dto, conn, d.copy().maxRecvIov(7)));
            assertEquals(DatReturnType.INVALID_PARAMETER, recv.type(), recv.getMessage());
        } finally {
            ia.close(io.jdat.CloseFlags.ABRUPT);
        }
    }
}
