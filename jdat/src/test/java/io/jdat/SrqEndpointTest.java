package io.jdat;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.expectDat;
import static io.jdat.testing.DataPath.iov;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.ConnFixture;
import io.jdat.testing.DataPath;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code dat_ep_create_with_srq} and the life of an SRQ EP (ECS-01..11, RST-08 for SRQ EPs, AMB-09, AMB-12). */
class SrqEndpointTest {
    @Test
    @DisplayName("ECS-01: create_with_srq(ia, pz, recv, request, connect, srq, attributes) makes an UNCONNECTED EP"
            + " that reports its SRQ and EVDs")
    void create() {
        try (SrqFixture f = new SrqFixture()) {
            EventDispatcher recv = f.serverDtoEvd(8);
            EventDispatcher req = f.serverDtoEvd(8);
            EventDispatcher conn = EventDispatcher.create(f.serverIa, 4, null, EvdFlags.CONNECTION);
            Endpoint ep = Endpoint.createWithSrq(f.serverIa, f.serverPz, recv, req, conn, f.srq, SrqFixture.attr());
            assertEquals(HandleType.EP, ep.getHandleType());
            assertEquals(EpState.UNCONNECTED, ep.getStatus().epState());
            EpParam p = ep.query(EpParam.FIELD_ALL);
            assertSame(f.srq, p.srqHandle());
            assertSame(f.serverPz, p.pzHandle());
            assertSame(recv, p.recvEvdHandle());
            assertSame(req, p.requestEvdHandle());
            assertSame(conn, p.connectEvdHandle());
            assertSame(f.serverIa, p.iaHandle());
            assertEquals(new Endpoint.RecvQueryResult(0, 0), ep.recvQuery());
            assertTrue(ep.getStatus().recvIdle());
            // A NULL PZ and connect EVD are allowed as for dat_ep_create (UNCONFIGURED until modified).
            Endpoint bare = Endpoint.createWithSrq(f.serverIa, null, null, null, null, f.srq, SrqFixture.attr());
            assertEquals(EpState.UNCONFIGURED_UNCONNECTED, bare.getStatus().epState());
            assertSame(f.srq, bare.query(EpParam.FIELD_SRQ_HANDLE).srqHandle());
            // A plain EP has no SRQ.
            Endpoint plain = Endpoint.create(f.serverIa, f.serverPz, null, null, null, null);
            assertNull(plain.query(EpParam.FIELD_ALL).srqHandle());
        }
    }

    @Test
    @DisplayName("ECS-02 SRQ-21: NULL ep_attributes is INVALID_PARAMETER (argument 7); a NULL, freed or foreign SRQ is"
            + " INVALID_HANDLE (SRQ); a failed create leaves the SRQ unused")
    void createErrors() {
        try (SrqFixture f = new SrqFixture()) {
            EventDispatcher recv = f.serverDtoEvd(8);
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG7,
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, recv, null, null, f.srq, null));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ,
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, recv, null, null, null, SrqFixture.attr()));
            SharedReceiveQueue freed = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(4, 1, 0));
            freed.free();
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ,
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, recv, null, null, freed, SrqFixture.attr()));
            SharedReceiveQueue foreign = SharedReceiveQueue.create(f.clientIa, f.clientPz, new SrqAttr(4, 1, 0));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ,
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, recv, null, null, foreign, SrqFixture.attr()));
            expectDat(DatReturnType.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> Endpoint.createWithSrq(f.serverIa, f.clientPz, recv, null, null, f.srq, SrqFixture.attr()));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG7,
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, recv, null, null, f.srq,
                            SrqFixture.attr().maxMessageSize(-1)));
            // None of the failures attached an EP: the SRQ frees.
            SharedReceiveQueue unused = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(4, 1, 0));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG7,
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, recv, null, null, unused, null));
            unused.free();
        }
    }

    @Test
    @DisplayName("ECS-03 AMB-12: receives come only from the SRQ: post_recv on an SRQ EP is INVALID_PARAMETER in every"
            + " state (never INVALID_STATE) and posts nothing")
    void postRecvRefused() {
        try (SrqFixture f = new SrqFixture()) {
            SrqFixture.Conn c = f.connect();
            Endpoint idle = f.srqEp(f.serverDtoEvd(8), SrqFixture.attr());
            LmrTriplet[] buf = iov(f.serverLmr, 0, 64);
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> idle.postRecv(1, buf, 1, 0));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> c.server.postRecv(1, buf, 2, 0));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> c.server.postRecv(0, null, 3, 0));
            c.client.disconnect(CloseFlags.ABRUPT);
            ConnFixture.expect(c.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1, () -> c.server.postRecv(1, buf, 4, 0));
            assertEmpty(c.serverRecv, "nothing was posted, so nothing is flushed");
            assertEquals(new Endpoint.RecvQueryResult(0, 0), c.server.recvQuery());
            f.assertCounts(64, 0, 0, "the SRQ got nothing either");
        }
    }

    @Test
    @DisplayName("ECS-04 ECS-05 SRQ-22: EP PZ != SRQ PZ (srq_ep_pz_difference_supported is TRUE): receive buffers are"
            + " checked against the SRQ's PZ, the EP's own sends and the incoming RDMA against the EP's PZ")
    void pzRoles() {
        try (SrqFixture f = new SrqFixture()) {
            assertTrue(f.serverIa.query(0, ProviderAttr.FIELD_ALL).providerAttr().srqEpPzDifferenceSupported());
            ProtectionZone epPz = ProtectionZone.create(f.serverIa);
            Lmr epLmr = Lmr.create(f.serverIa, MemType.VIRTUAL, RegionDescription.forVa(f.serverBuf.asSlice(32768)),
                    32768, epPz, MemPriv.ALL);
            Endpoint ep = Endpoint.createWithSrq(f.serverIa, epPz, f.serverDtoEvd(16), f.serverDtoEvd(16),
                    EventDispatcher.create(f.serverIa, 4, null, EvdFlags.CONNECTION), f.srq, SrqFixture.attr());
            EpParam p = ep.query(EpParam.FIELD_ALL);
            SrqFixture.Conn c = f.connect(ep, p.recvEvdHandle(), p.requestEvdHandle(), p.connectEvdHandle());
            // Receive buffers: the SRQ's PZ.
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> f.srq.postRecv(1, new LmrTriplet[] {epLmr.triplet(0, 64)}, 1));
            f.post(2, 0, 64);
            DataPath.fill(f.clientBuf, 0, 48, 5);
            f.sendAndWait(c, 1, 0, 48);
            DataPath.dtoOk(c.serverRecv, 2, 48);
            DataPath.assertPattern(f.serverBuf, 0, 48, 5, 0, "message in the SRQ-PZ buffer");
            // The EP's sends: the EP's PZ.
            expectDat(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_READ,
                    () -> ep.postSend(1, new LmrTriplet[] {f.serverLmr.triplet(0, 8)}, 3, CompletionFlags.DEFAULT));
            c.client.postRecv(1, iov(f.clientLmr, 1024, 64), 4, CompletionFlags.DEFAULT);
            ep.postSend(1, new LmrTriplet[] {epLmr.triplet(0, 8)}, 5, CompletionFlags.DEFAULT);
            DataPath.dtoOk(c.serverReq, 5, 8);
            DataPath.dtoOk(c.clientRecv, 4, 8);
            // Incoming RDMA: the EP's PZ; an RMR context of the SRQ's PZ is a remote access error.
            c.client.postRdmaWrite(1, iov(f.clientLmr, 0, 16), 6, epLmr.remoteTriplet(0, 16), CompletionFlags.DEFAULT);
            DataPath.dtoOk(c.clientReq, 6, 16);
            DataPath.assertPattern(f.serverBuf, 32768, 16, 5, 0, "RDMA Write into the EP's PZ");
            c.client.postRdmaWrite(1, iov(f.clientLmr, 0, 16), 7, f.serverLmr.remoteTriplet(0, 16),
                    CompletionFlags.DEFAULT);
            DataPath.dto(c.clientReq, DtoCompletionStatus.ERR_REMOTE_ACCESS, 7);
            ConnFixture.expect(c.serverConn, EventNumber.CONNECTION_EVENT_BROKEN);
        }
    }

    @Test
    @DisplayName("ECS-06 AMB-09 RST-08: srq_handle is never modifiable (INVALID_PARAMETER); reset keeps the SRQ"
            + " association and the reset EP receives from the SRQ again; only ep_free ends it")
    void associationLasts() {
        try (SrqFixture f = new SrqFixture()) {
            SrqFixture.Conn c = f.connect();
            SharedReceiveQueue another = SharedReceiveQueue.create(f.serverIa, f.serverPz, new SrqAttr(4, 1, 0));
            EpParam change = new EpParam().srqHandle(another);
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    () -> c.server.modify(EpParam.FIELD_SRQ_HANDLE, change));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    () -> c.server.modify(EpParam.FIELD_SRQ_HANDLE, new EpParam()));
            c.client.disconnect(CloseFlags.ABRUPT);
            ConnFixture.expect(c.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    () -> c.server.modify(EpParam.FIELD_SRQ_HANDLE, change));
            c.server.reset();
            assertEquals(EpState.UNCONNECTED, c.server.getStatus().epState());
            assertSame(f.srq, c.server.query(EpParam.FIELD_ALL).srqHandle(), "RST-08: association kept");
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    () -> c.server.modify(EpParam.FIELD_SRQ_HANDLE, change));
            // Other fields stay modifiable in U, the SRQ with them.
            c.server.modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, new EpParam().epAttr(SrqFixture.attr().maxRecvDtos(3)));
            assertSame(f.srq, c.server.query(EpParam.FIELD_ALL).srqHandle());
            // RST-07 for SRQ EPs: reconnect and receive from the SRQ again.
            SrqFixture.Conn again = f.connect(c.server, c.serverRecv, c.serverReq, c.serverConn);
            f.post(1, 0, 64);
            f.sendAndWait(again, 1, 0, 8);
            DataPath.dtoOk(c.serverRecv, 1, 8);
            expectDat(DatReturnType.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, f.srq::free);
            again.client.disconnect(CloseFlags.ABRUPT);
            ConnFixture.expect(c.serverConn, EventNumber.CONNECTION_EVENT_DISCONNECTED);
            c.server.free();
            f.srq.free();
            another.free();
        }
    }

    @Test
    @DisplayName("ECS-07: the created EP has exactly the requested attributes (max_request_dtos/iov at least);"
            + " max_recv_iov is ignored: SRQ buffers of more segments still fill; an unsatisfiable request fails")
    void attributes() {
        try (SrqFixture f = new SrqFixture(new SrqAttr(8, 4, 0))) {
            EpAttr want = new EpAttr().maxMessageSize(4096).maxRdmaSize(8192).maxRecvDtos(3).maxRequestDtos(5)
                    .maxRecvIov(0).maxRequestIov(2).maxRdmaReadIn(1).maxRdmaReadOut(2).maxRdmaReadIov(2)
                    .maxRdmaWriteIov(2).srqSoftHw(7).qos(Qos.BEST_EFFORT)
                    .recvCompletionFlags(CompletionFlags.EVD_THRESHOLD).requestCompletionFlags(CompletionFlags.EVD_THRESHOLD);
            EventDispatcher recv = f.serverDtoEvd(16);
            Endpoint ep = Endpoint.createWithSrq(f.serverIa, f.serverPz, recv, f.serverDtoEvd(16),
                    EventDispatcher.create(f.serverIa, 4, null, EvdFlags.CONNECTION), f.srq, want);
            EpAttr got = ep.query(EpParam.FIELD_ALL).epAttr();
            assertTrue(got.maxRequestDtos() >= 5);
            assertTrue(got.maxRequestIov() >= 2);
            assertEquals(3, got.maxRecvDtos());
            assertEquals(4096, got.maxMessageSize());
            assertEquals(8192, got.maxRdmaSize());
            assertEquals(1, got.maxRdmaReadIn());
            assertEquals(2, got.maxRdmaReadOut());
            assertEquals(7, got.srqSoftHw());
            assertEquals(ServiceType.RC, got.serviceType());
            assertEquals(CompletionFlags.EVD_THRESHOLD, got.recvCompletionFlags());
            assertEquals(CompletionFlags.EVD_THRESHOLD, got.requestCompletionFlags());
            // max_recv_iov 0 does not limit the SRQ's four-segment buffers.
            EpParam p = ep.query(EpParam.FIELD_ALL);
            SrqFixture.Conn c = f.connect(ep, recv, p.requestEvdHandle(), p.connectEvdHandle());
            DataPath.sentinel(f.serverBuf);
            f.srq.postRecv(4, iov(f.serverLmr, 0, 4, 100, 4, 200, 4, 300, 4), 9);
            DataPath.fill(f.clientBuf, 0, 14, 2);
            f.sendAndWait(c, 1, 0, 14);
            DataPath.dtoOk(recv, 9, 14);
            DataPath.assertPattern(f.serverBuf, 0, 4, 2, 0, "segment 0");
            DataPath.assertPattern(f.serverBuf, 100, 4, 2, 4, "segment 1");
            DataPath.assertPattern(f.serverBuf, 200, 4, 2, 8, "segment 2");
            DataPath.assertPattern(f.serverBuf, 300, 2, 2, 12, "segment 3");
            DataPath.assertUntouchedExcept(f.serverBuf, 0, 4, 100, 4, 200, 4, 300, 2);
            // Unsatisfiable: beyond the IA's message size.
            long tooBig = f.serverIa.query(IaAttr.FIELD_ALL, 0).iaAttr().maxMessageSize() + 1;
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG7,
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, null, null, null, f.srq,
                            SrqFixture.attr().maxMessageSize(tooBig)));
            // Unsatisfiable: a QoS mem does not offer.
            expectDat(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE,
                    () -> Endpoint.createWithSrq(f.serverIa, f.serverPz, null, null, null, f.srq,
                            SrqFixture.attr().qos(Qos.PREMIUM)));
        }
    }

    @Test
    @DisplayName("ECS-08: SRQ receive completions are always signalled: an EP with UNSIGNALLED recv_completion_flags"
            + " still wakes its waiter")
    void alwaysSignalled() {
        try (SrqFixture f = new SrqFixture()) {
            EventDispatcher recv = f.serverDtoEvd(8);
            SrqFixture.Conn c = f.connect(recv, SrqFixture.attr().recvCompletionFlags(CompletionFlags.UNSIGNALLED));
            f.post(1, 0, 64);
            f.sendAndWait(c, 1, 0, 8);
            DatEvent e = new DatEvent();
            assertTrue(recv.waitFor(SrqFixture.WAIT, 1, e), "the completion notified");
            DataPath.checkDto(e, DtoCompletionStatus.SUCCESS, 1);
        }
    }

    @Test
    @DisplayName("ECS-09 EPC-23: on the EVD_THRESHOLD recv EVD of an SRQ EP every DTO stream must use EVD_THRESHOLD:"
            + " another EP's stream with other flags is INVALID_PARAMETER")
    void thresholdEvd() {
        try (SrqFixture f = new SrqFixture()) {
            EventDispatcher recv = f.serverDtoEvd(16);
            f.srqEp(recv, SrqFixture.attr().recvCompletionFlags(CompletionFlags.EVD_THRESHOLD));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG7,
                    () -> f.srqEp(recv, SrqFixture.attr().recvCompletionFlags(CompletionFlags.DEFAULT)));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG6,
                    () -> Endpoint.create(f.serverIa, f.serverPz, null, recv, null,
                            SrqFixture.attr().requestCompletionFlags(CompletionFlags.DEFAULT)));
            // EVD_THRESHOLD streams join it.
            f.srqEp(recv, SrqFixture.attr());
            Endpoint.create(f.serverIa, f.serverPz, null, recv, null, SrqFixture.attr());
        }
    }

    @Test
    @DisplayName("ECS-10: a max_rdma_read_iov beyond the IA's capability is INVALID_PARAMETER")
    void rdmaReadIov() {
        try (SrqFixture f = new SrqFixture()) {
            int max = f.serverIa.query(IaAttr.FIELD_ALL, 0).iaAttr().maxIovSegmentsPerRdmaRead();
            f.srqEp(null, SrqFixture.attr().maxRdmaReadIov(max));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG7,
                    () -> f.srqEp(null, SrqFixture.attr().maxRdmaReadIov(max + 1)));
            expectDat(DatReturnType.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG7,
                    () -> f.srqEp(null, SrqFixture.attr().maxRdmaReadIn(
                            f.serverIa.query(IaAttr.FIELD_ALL, 0).iaAttr().maxRdmaReadIn() + 1)));
        }
    }

    @Test
    @DisplayName("ECS-11: RDMA Read depths left unset are 0; consumer-specified attributes are not altered by"
            + " connection setup")
    void depthsAndSetup() {
        try (SrqFixture f = new SrqFixture()) {
            EpAttr unset = new EpAttr().maxMessageSize(1024).maxRecvDtos(4).maxRequestDtos(4).maxRequestIov(1);
            Endpoint ep = f.srqEp(null, unset);
            assertEquals(0, ep.query(EpParam.FIELD_ALL).epAttr().maxRdmaReadIn());
            assertEquals(0, ep.query(EpParam.FIELD_ALL).epAttr().maxRdmaReadOut());
            EpAttr set = SrqFixture.attr().maxRdmaReadIn(2).maxRdmaReadOut(3).maxRequestDtos(7);
            EventDispatcher recv = f.serverDtoEvd(8);
            Endpoint server = f.srqEp(recv, set);
            EpAttr before = server.query(EpParam.FIELD_ALL).epAttr();
            EpParam p = server.query(EpParam.FIELD_ALL);
            f.connect(server, recv, p.requestEvdHandle(), p.connectEvdHandle());
            EpAttr after = server.query(EpParam.FIELD_ALL).epAttr();
            assertEquals(before.toString(), after.toString(), "attributes after the connection was set up");
            assertEquals(2, after.maxRdmaReadIn());
            assertEquals(3, after.maxRdmaReadOut());
        }
    }
}
