package io.jdat;

import static io.jdat.testing.EpAssert.fails;
import static io.jdat.testing.EpAssert.invalidHandle;
import static io.jdat.testing.EpAssert.invalidParam;
import static io.jdat.testing.EpAssert.invalidState;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.testing.EpStateFixture;
import io.jdat.testing.EpStateFixture.St;
import io.jdat.testing.Pair;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code dat_ep_modify} (CONFORMANCE §1.2, EPM-01..36) and the state table of API.md §7.4. */
class EndpointModifyTest {
    private static final int TIMEOUT = EpStateFixture.TIMEOUT;

    private static LmrTriplet[] iov(Lmr lmr, long offset, long length) {
        return new LmrTriplet[] {lmr.triplet(offset, length)};
    }

    /** Every field of a query result, by name (handles by identity, attributes by value). */
    private static Map<String, Object> snap(EpParam p) {
        EpAttr a = p.epAttr();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ep_state", p.epState());
        m.put("ia_handle", p.iaHandle());
        m.put("local_ia_address", p.localIaAddress());
        m.put("local_port_qual", p.localPortQual());
        m.put("remote_ia_address", p.remoteIaAddress());
        m.put("remote_port_qual", p.remotePortQual());
        m.put("pz_handle", p.pzHandle());
        m.put("recv_evd_handle", p.recvEvdHandle());
        m.put("request_evd_handle", p.requestEvdHandle());
        m.put("connect_evd_handle", p.connectEvdHandle());
        m.put("srq_handle", p.srqHandle());
        m.put("service_type", a.serviceType());
        m.put("max_message_size", a.maxMessageSize());
        m.put("max_rdma_size", a.maxRdmaSize());
        m.put("qos", a.qos());
        m.put("recv_completion_flags", a.recvCompletionFlags());
        m.put("request_completion_flags", a.requestCompletionFlags());
        m.put("max_recv_dtos", a.maxRecvDtos());
        m.put("max_request_dtos", a.maxRequestDtos());
        m.put("max_recv_iov", a.maxRecvIov());
        m.put("max_request_iov", a.maxRequestIov());
        m.put("max_rdma_read_in", a.maxRdmaReadIn());
        m.put("max_rdma_read_out", a.maxRdmaReadOut());
        m.put("srq_soft_hw", a.srqSoftHw());
        m.put("max_rdma_read_iov", a.maxRdmaReadIov());
        m.put("max_rdma_write_iov", a.maxRdmaWriteIov());
        m.put("ep_transport_specific", a.epTransportSpecific());
        m.put("ep_provider_specific", a.epProviderSpecific());
        return m;
    }

    private static Map<String, Object> snap(Endpoint ep) {
        return snap(ep.query(EpParam.FIELD_ALL));
    }

    /** A modifiable parameter of §7.4: its mask, the snapshot key it changes, and where it may change. */
    enum Field {
        PZ_HANDLE(EpParam.FIELD_PZ_HANDLE, "pz_handle"),
        RECV_EVD_HANDLE(EpParam.FIELD_RECV_EVD_HANDLE, "recv_evd_handle"),
        REQUEST_EVD_HANDLE(EpParam.FIELD_REQUEST_EVD_HANDLE, "request_evd_handle"),
        CONNECT_EVD_HANDLE(EpParam.FIELD_CONNECT_EVD_HANDLE, "connect_evd_handle"),
        SERVICE_TYPE(EpParam.FIELD_EP_ATTR_SERVICE_TYPE, "service_type"),
        MAX_MESSAGE_SIZE(EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE, "max_message_size"),
        MAX_RDMA_SIZE(EpParam.FIELD_EP_ATTR_MAX_RDMA_SIZE, "max_rdma_size"),
        QOS(EpParam.FIELD_EP_ATTR_QOS, "qos"),
        RECV_COMPLETION_FLAGS(EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, "recv_completion_flags"),
        REQUEST_COMPLETION_FLAGS(EpParam.FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS, "request_completion_flags"),
        MAX_RECV_DTOS(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, "max_recv_dtos"),
        MAX_REQUEST_DTOS(EpParam.FIELD_EP_ATTR_MAX_REQUEST_DTOS, "max_request_dtos"),
        MAX_RECV_IOV(EpParam.FIELD_EP_ATTR_MAX_RECV_IOV, "max_recv_iov"),
        MAX_REQUEST_IOV(EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV, "max_request_iov"),
        MAX_RDMA_READ_IN(EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IN, "max_rdma_read_in"),
        MAX_RDMA_READ_OUT(EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_OUT, "max_rdma_read_out"),
        SRQ_SOFT_HW(EpParam.FIELD_EP_ATTR_SRQ_SOFT_HW, "srq_soft_hw"),
        MAX_RDMA_READ_IOV(EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IOV, "max_rdma_read_iov"),
        MAX_RDMA_WRITE_IOV(EpParam.FIELD_EP_ATTR_MAX_RDMA_WRITE_IOV, "max_rdma_write_iov"),
        NUM_TRANSPORT_ATTR(EpParam.FIELD_EP_ATTR_NUM_TRANSPORT_ATTR, "ep_transport_specific"),
        TRANSPORT_SPECIFIC_ATTR(EpParam.FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR, "ep_transport_specific"),
        NUM_PROVIDER_ATTR(EpParam.FIELD_EP_ATTR_NUM_PROVIDER_ATTR, "ep_provider_specific"),
        PROVIDER_SPECIFIC_ATTR(EpParam.FIELD_EP_ATTR_PROVIDER_SPECIFIC_ATTR, "ep_provider_specific");

        final long mask;
        final String key;

        Field(long mask, String key) {
            this.mask = mask;
            this.key = key;
        }

        /** API.md §7.4. */
        boolean allowedIn(St st) {
            return switch (this) {
                case PZ_HANDLE -> st == St.U || st == St.TCP;
                case NUM_TRANSPORT_ATTR, TRANSPORT_SPECIFIC_ATTR, NUM_PROVIDER_ATTR, PROVIDER_SPECIFIC_ATTR ->
                    st == St.U;
                default -> st == St.U || st == St.R || st == St.PCP || st == St.TCP;
            };
        }

        /** A valid new value, different from the fixture's current one where the field has another value. */
        EpParam newValue(InterfaceAdapter ia, EpAttr current) {
            EpParam p = new EpParam().epAttr(current.copy());
            EpAttr a = p.epAttr();
            switch (this) {
                case PZ_HANDLE -> p.pzHandle(ProtectionZone.create(ia));
                case RECV_EVD_HANDLE -> p.recvEvdHandle(EventDispatcher.create(ia, 64, null, EvdFlags.DTO));
                case REQUEST_EVD_HANDLE ->
                    p.requestEvdHandle(EventDispatcher.create(ia, 64, null, EvdFlags.DTO | EvdFlags.RMR_BIND));
                case CONNECT_EVD_HANDLE -> p.connectEvdHandle(EventDispatcher.create(ia, 16, null, EvdFlags.CONNECTION));
                case SERVICE_TYPE -> a.serviceType(ServiceType.RC); // the only 1.2 value
                case MAX_MESSAGE_SIZE -> a.maxMessageSize(current.maxMessageSize() / 2);
                case MAX_RDMA_SIZE -> a.maxRdmaSize(current.maxRdmaSize() / 2);
                case QOS -> a.qos(Qos.HIGH_THROUGHPUT);
                case RECV_COMPLETION_FLAGS -> a.recvCompletionFlags(CompletionFlags.DEFAULT);
                case REQUEST_COMPLETION_FLAGS -> a.requestCompletionFlags(CompletionFlags.DEFAULT);
                case MAX_RECV_DTOS -> a.maxRecvDtos(current.maxRecvDtos() + 3);
                case MAX_REQUEST_DTOS -> a.maxRequestDtos(current.maxRequestDtos() + 3);
                case MAX_RECV_IOV -> a.maxRecvIov(current.maxRecvIov() - 1);
                case MAX_REQUEST_IOV -> a.maxRequestIov(current.maxRequestIov() - 1);
                case MAX_RDMA_READ_IN -> a.maxRdmaReadIn(current.maxRdmaReadIn() - 1);
                case MAX_RDMA_READ_OUT -> a.maxRdmaReadOut(current.maxRdmaReadOut() - 1);
                case SRQ_SOFT_HW -> a.srqSoftHw(10);
                case MAX_RDMA_READ_IOV -> a.maxRdmaReadIov(current.maxRdmaReadIov() - 1);
                case MAX_RDMA_WRITE_IOV -> a.maxRdmaWriteIov(current.maxRdmaWriteIov() - 1);
                default -> {
                    // jdat defines no transport- or provider-specific attributes: the empty list is the only value.
                }
            }
            return p;
        }
    }

    // ====================================================================== §7.4 matrix

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("EPM-04 EPM-09 EPM-11 EPM-12 EPM-13 EPM-14 EPM-15 EPM-16 EPM-17 EPM-18 EPM-20 EPM-22 EPM-23 EPM-24 EPM-25 EPM-26 EPM-27 EPM-28 EPM-29 EPM-30 EPM-31 EPM-32 EPM-35 AMB-06 AMB-09: each parameter is modifiable exactly in the states of §7.4; elsewhere INVALID_STATE with the EP-state subtype and nothing changes")
    void modifyTable(St st) {
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            for (Field f : Field.values()) {
                Map<String, Object> before = snap(fx.ep);
                EpAttr cur = fx.ep.query(EpParam.FIELD_EP_ATTR_ALL).epAttr();
                EpParam p = f.newValue(fx.ia, cur);
                if (f.allowedIn(st)) {
                    fx.ep.modify(f.mask, p);
                    Map<String, Object> expected = new LinkedHashMap<>(before);
                    expected.put(f.key, snap(p).get(f.key));
                    assertEquals(expected, snap(fx.ep), f + " in " + st);
                } else {
                    invalidState(st.subtype, () -> fx.ep.modify(f.mask, p));
                    assertEquals(before, snap(fx.ep), f + " in " + st + " (EPM-35: nothing changed)");
                }
                assertEquals(st.epState, fx.state(), "EPM-04: modify never changes the state");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(St.class)
    @DisplayName("EPM-03 EPM-04 EPM-05 EPM-06 EPM-07 EPM-08 AMB-09: ia_handle, ep_state, addresses, port qualifiers and srq_handle are never modifiable (INVALID_PARAMETER)")
    void neverModifiable(St st) {
        long[] masks = {EpParam.FIELD_IA_HANDLE, EpParam.FIELD_EP_STATE, EpParam.FIELD_LOCAL_IA_ADDRESS_PTR,
            EpParam.FIELD_LOCAL_PORT_QUAL, EpParam.FIELD_REMOTE_IA_ADDRESS_PTR, EpParam.FIELD_REMOTE_PORT_QUAL,
            EpParam.FIELD_SRQ_HANDLE};
        try (EpStateFixture fx = EpStateFixture.of(st)) {
            Map<String, Object> before = snap(fx.ep);
            EpParam p = fx.ep.query(EpParam.FIELD_ALL);
            p.epState(EpState.DISCONNECTED).localPortQual(4711).remotePortQual(4712).localIaAddress(null)
                    .remoteIaAddress(null).iaHandle(fx.other.ia);
            p.epAttr().maxRecvDtos(p.epAttr().maxRecvDtos() + 1);
            for (long m : masks) {
                invalidParam(DatReturnSubtype.INVALID_ARG2, () -> fx.ep.modify(m, p));
                invalidParam(DatReturnSubtype.INVALID_ARG2,
                        () -> fx.ep.modify(m | EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, p));
            }
            assertEquals(before, snap(fx.ep));
        }
    }

    // ====================================================================== EPM-01/02

    @Test
    @DisplayName("EPM-01 EPM-02 EPM-32: modify(mask, param) changes only the masked fields; all others keep their values")
    void onlyMaskedFieldsChange() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            EpAttr cur = ia.defaultEpAttr();
            // One parameter block in which every field differs from the EP's current configuration.
            EpParam all = new EpParam().pzHandle(ProtectionZone.create(ia))
                    .recvEvdHandle(EventDispatcher.create(ia, 64, null, EvdFlags.DTO))
                    .requestEvdHandle(EventDispatcher.create(ia, 64, null, EvdFlags.DTO))
                    .connectEvdHandle(EventDispatcher.create(ia, 64, null, EvdFlags.CONNECTION))
                    .epAttr(new EpAttr().maxMessageSize(1000).maxRdmaSize(2000).qos(Qos.LOW_LATENCY)
                            .recvCompletionFlags(CompletionFlags.DEFAULT).requestCompletionFlags(CompletionFlags.DEFAULT)
                            .maxRecvDtos(7).maxRequestDtos(9).maxRecvIov(3).maxRequestIov(5).maxRdmaReadIn(1)
                            .maxRdmaReadOut(2).srqSoftHw(11).maxRdmaReadIov(2).maxRdmaWriteIov(6));
            Map<String, Object> target = snap(all);
            for (Field f : Field.values()) {
                Endpoint ep = Endpoint.create(ia, p.client.pz, EventDispatcher.create(ia, 64, null, EvdFlags.DTO),
                        EventDispatcher.create(ia, 64, null, EvdFlags.DTO), p.client.connEvd, cur);
                Map<String, Object> before = snap(ep);
                ep.modify(f.mask, all);
                Map<String, Object> expected = new LinkedHashMap<>(before);
                expected.put(f.key, target.get(f.key));
                assertEquals(expected, snap(ep), f.toString());
                if (f != Field.SERVICE_TYPE && !f.key.startsWith("ep_")) {
                    assertNotEquals(before.get(f.key), target.get(f.key), "the test value of " + f + " differs");
                }
            }
            // Several fields at once.
            Endpoint ep = Endpoint.create(ia, p.client.pz, null, null, null, cur);
            Map<String, Object> before = snap(ep);
            long mask = EpParam.FIELD_EP_ATTR_QOS | EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV | EpParam.FIELD_CONNECT_EVD_HANDLE;
            ep.modify(mask, all);
            Map<String, Object> expected = new LinkedHashMap<>(before);
            for (String k : List.of("qos", "max_request_iov", "connect_evd_handle")) {
                expected.put(k, target.get(k));
            }
            expected.put("ep_state", EpState.UNCONNECTED); // now configured: PZ and connect EVD
            assertEquals(expected, snap(ep));
            // Mask 0 changes nothing, whatever the block holds.
            ep.modify(0, all);
            assertEquals(expected, snap(ep));
        }
    }

    // ====================================================================== PZ (EPM-09, EPM-10)

    @Test
    @DisplayName("EPM-10 AMB-08: after a PZ change, receives posted with LMRs of the old PZ complete with LOCAL_PROTECTION; modify succeeds")
    void pzChangeFailsPostedReceives() {
        try (Pair p = new Pair()) {
            Endpoint ep = p.server.ep;
            ep.postRecv(1, iov(p.server.lmr, 0, 64), 1, 0);
            ep.postRecv(1, iov(p.server.lmr, 64, 64), 2, 0);
            ProtectionZone pz2 = ProtectionZone.create(p.server.ia);
            ep.modify(EpParam.FIELD_PZ_HANDLE, new EpParam().pzHandle(pz2));
            assertSame(pz2, ep.query(EpParam.FIELD_PZ_HANDLE).pzHandle());
            for (long cookie : new long[] {1, 2}) {
                DatEvent e = p.server.next(p.server.recvEvd);
                assertEquals(EventNumber.DTO_COMPLETION_EVENT, e.eventNumber());
                assertEquals(cookie, e.userCookie());
                assertEquals(DtoCompletionStatus.ERR_LOCAL_PROTECTION, e.status());
            }
            assertTrue(ep.getStatus().recvIdle());
            // The old PZ's LMR is now refused synchronously; one of the new PZ works end to end.
            fails(DatReturnType.PROTECTION_VIOLATION, DatReturnSubtype.PROTECTION_WRITE,
                    () -> ep.postRecv(1, iov(p.server.lmr, 0, 64), 3, 0));
            var seg = p.server.arena.allocate(4096, 256);
            Lmr lmr2 = Lmr.create(p.server.ia, MemType.VIRTUAL, RegionDescription.forVa(seg), 4096, pz2, MemPriv.ALL);
            ep.postRecv(1, iov(lmr2, 0, 64), 4, 0);
            p.connect();
            p.client.buf.set(ValueLayout.JAVA_LONG, 0, 0xABCDL);
            p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 5, 0);
            p.client.expectDto(p.client.reqEvd, 5);
            assertEquals(8, p.server.expectDto(p.server.recvEvd, 4).transferredLength());
            assertEquals(0xABCDL, seg.get(ValueLayout.JAVA_LONG, 0));
        }
    }

    // ====================================================================== completion flags (EPM-18..21)

    @Test
    @DisplayName("EPM-18: recv_completion_flags cannot change once a receive was posted (INVALID_STATE), nothing changes")
    void recvFlagsOnlyBeforeFirstReceive() {
        try (Pair p = new Pair()) {
            Endpoint ep = p.client.ep;
            ep.modify(EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
                    new EpParam().epAttr(new EpAttr().recvCompletionFlags(CompletionFlags.DEFAULT)));
            ep.postRecv(1, iov(p.client.lmr, 0, 64), 1, 0);
            Map<String, Object> before = snap(ep);
            invalidState(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED, () -> ep.modify(
                    EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS | EpParam.FIELD_EP_ATTR_QOS,
                    new EpParam().epAttr(new EpAttr().recvCompletionFlags(CompletionFlags.UNSIGNALLED)
                            .qos(Qos.HIGH_THROUGHPUT))));
            assertEquals(before, snap(ep));
            // Other fields still change.
            ep.modify(EpParam.FIELD_EP_ATTR_QOS, new EpParam().epAttr(new EpAttr().qos(Qos.HIGH_THROUGHPUT)));
            assertEquals(Qos.HIGH_THROUGHPUT, ep.query(EpParam.FIELD_EP_ATTR_QOS).epAttr().qos());
        }
    }

    @Test
    @DisplayName("EPM-19 AMB-07 EPM-34: recv_completion_flags accepts DEFAULT, UNSIGNALLED, SOLICITED_WAIT, EVD_THRESHOLD; SUPPRESS, BARRIER_FENCE and others → INVALID_PARAMETER")
    void recvFlagValues() {
        try (Pair p = new Pair()) {
            Endpoint ep = p.client.ep;
            long m = EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS;
            for (int f : new int[] {CompletionFlags.DEFAULT, CompletionFlags.UNSIGNALLED, CompletionFlags.SOLICITED_WAIT,
                CompletionFlags.EVD_THRESHOLD}) {
                ep.modify(m, new EpParam().epAttr(new EpAttr().recvCompletionFlags(f)));
                assertEquals(f, ep.query(m).epAttr().recvCompletionFlags());
            }
            for (int f : new int[] {CompletionFlags.SUPPRESS, CompletionFlags.BARRIER_FENCE,
                CompletionFlags.SOLICITED_WAIT | CompletionFlags.UNSIGNALLED, CompletionFlags.DEFAULT | 0x40, -1}) {
                invalidParam(DatReturnSubtype.INVALID_ARG3,
                        () -> ep.modify(m, new EpParam().epAttr(new EpAttr().recvCompletionFlags(f))));
                assertEquals(CompletionFlags.EVD_THRESHOLD, ep.query(m).epAttr().recvCompletionFlags());
            }
        }
    }

    @Test
    @DisplayName("EPM-20 EPM-34: request_completion_flags accepts DEFAULT, UNSIGNALLED, EVD_THRESHOLD; SOLICITED_WAIT, SUPPRESS, BARRIER_FENCE → INVALID_PARAMETER")
    void requestFlagValues() {
        try (Pair p = new Pair()) {
            Endpoint ep = p.client.ep;
            long m = EpParam.FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS;
            for (int f : new int[] {CompletionFlags.DEFAULT, CompletionFlags.UNSIGNALLED, CompletionFlags.EVD_THRESHOLD}) {
                ep.modify(m, new EpParam().epAttr(new EpAttr().requestCompletionFlags(f)));
                assertEquals(f, ep.query(m).epAttr().requestCompletionFlags());
            }
            for (int f : new int[] {CompletionFlags.SOLICITED_WAIT, CompletionFlags.SUPPRESS, CompletionFlags.BARRIER_FENCE,
                CompletionFlags.UNSIGNALLED | CompletionFlags.SUPPRESS}) {
                invalidParam(DatReturnSubtype.INVALID_ARG3,
                        () -> ep.modify(m, new EpParam().epAttr(new EpAttr().requestCompletionFlags(f))));
                assertEquals(CompletionFlags.EVD_THRESHOLD, ep.query(m).epAttr().requestCompletionFlags());
            }
        }
    }

    @Test
    @DisplayName("EPM-21 SND-03: whatever request_completion_flags is, post_send accepts SUPPRESS, SOLICITED_WAIT and BARRIER_FENCE")
    void perPostFlagsAlwaysAccepted() {
        for (int epFlags : new int[] {CompletionFlags.DEFAULT, CompletionFlags.EVD_THRESHOLD, CompletionFlags.UNSIGNALLED}) {
            try (Pair p = new Pair()) {
                p.client.ep.modify(EpParam.FIELD_EP_ATTR_REQUEST_COMPLETION_FLAGS,
                        new EpParam().epAttr(new EpAttr().requestCompletionFlags(epFlags)));
                p.connect();
                for (int i = 0; i < 4; i++) {
                    p.server.ep.postRecv(1, iov(p.server.lmr, 64L * i, 64), 100 + i, 0);
                }
                p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 1, CompletionFlags.SUPPRESS);
                p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 2, CompletionFlags.SOLICITED_WAIT);
                p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 3, CompletionFlags.BARRIER_FENCE);
                p.client.ep.postSend(1, iov(p.client.lmr, 0, 8), 4,
                        CompletionFlags.SUPPRESS | CompletionFlags.SOLICITED_WAIT | CompletionFlags.BARRIER_FENCE);
                for (int i = 0; i < 4; i++) {
                    p.server.expectDto(p.server.recvEvd, 100 + i);
                }
                // SUPPRESS hides the successful completions of 1 and 4.
                List<Long> cookies = new ArrayList<>();
                DatEvent e = new DatEvent();
                while (p.client.reqEvd.dequeue(e)) {
                    assertEquals(DtoCompletionStatus.SUCCESS, e.status());
                    cookies.add(e.userCookie());
                }
                assertEquals(List.of(2L, 3L), cookies, "request_completion_flags " + epFlags);
            }
        }
    }

    // ====================================================================== limits take effect (EPM-15, EPM-22..25)

    @Test
    @DisplayName("EPM-15 EPM-22 EPM-25 RCV-10: modified limits take effect; posted receives survive a queue resize in order")
    void modifiedLimitsTakeEffect() {
        try (Pair p = new Pair()) {
            Endpoint srv = p.server.ep;
            srv.modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, new EpParam().epAttr(new EpAttr().maxRecvDtos(2)));
            srv.postRecv(1, iov(p.server.lmr, 0, 64), 1, 0);
            srv.postRecv(1, iov(p.server.lmr, 64, 64), 2, 0);
            fails(DatReturnType.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_TEP,
                    () -> srv.postRecv(1, iov(p.server.lmr, 128, 64), 3, 0));
            // Smaller than what is posted: refused, nothing changed.
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> srv.modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS,
                    new EpParam().epAttr(new EpAttr().maxRecvDtos(1))));
            assertEquals(2, srv.query(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS).epAttr().maxRecvDtos());
            srv.modify(EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS, new EpParam().epAttr(new EpAttr().maxRecvDtos(3)));
            assertEquals(2, srv.recvQuery().nbufsAllocated());
            srv.postRecv(1, iov(p.server.lmr, 128, 64), 3, 0);
            Endpoint cli = p.client.ep;
            cli.modify(EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE | EpParam.FIELD_EP_ATTR_MAX_REQUEST_IOV,
                    new EpParam().epAttr(new EpAttr().maxMessageSize(16).maxRequestIov(1)));
            p.connect();
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> cli.postSend(1, iov(p.client.lmr, 0, 17), 9, 0));
            invalidParam(DatReturnSubtype.INVALID_ARG2, () -> cli.postSend(2,
                    new LmrTriplet[] {p.client.lmr.triplet(0, 4), p.client.lmr.triplet(8, 4)}, 9, 0));
            for (int i = 1; i <= 3; i++) {
                p.client.buf.set(ValueLayout.JAVA_INT, 0, i);
                cli.postSend(1, iov(p.client.lmr, 0, 16), 10 + i, 0);
                p.client.expectDto(p.client.reqEvd, 10 + i);
                assertEquals(16, p.server.expectDto(p.server.recvEvd, i).transferredLength());
                assertEquals(i, p.server.buf.get(ValueLayout.JAVA_INT, 64L * (i - 1)));
            }
        }
    }

    // ====================================================================== errors (EPM-33..35)

    @Test
    @DisplayName("EPM-33: modify on a freed EP → INVALID_HANDLE (INVALID_HANDLE_EP)")
    void freedHandle() {
        try (Pair p = new Pair()) {
            Endpoint ep = Endpoint.create(p.client.ia, p.client.pz, null, null, null, null);
            ep.free();
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP, () -> ep.modify(EpParam.FIELD_EP_ATTR_QOS,
                    new EpParam().epAttr(new EpAttr().qos(Qos.HIGH_THROUGHPUT))));
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EP, () -> ep.modify(0, null));
        }
    }

    @Test
    @DisplayName("EPM-34: undefined mask bits, a missing parameter block or an invalid value → INVALID_PARAMETER, nothing changes")
    void invalidParameters() {
        try (Pair p = new Pair()) {
            Endpoint ep = p.client.ep;
            Map<String, Object> before = snap(ep);
            EpParam ok = new EpParam().epAttr(new EpAttr().maxRecvDtos(5).qos(Qos.HIGH_THROUGHPUT));
            for (long bad : new long[] {0x800L, 1L << 31, 1L << 40, Long.MIN_VALUE}) {
                invalidParam(DatReturnSubtype.INVALID_ARG2, () -> ep.modify(bad | EpParam.FIELD_EP_ATTR_QOS, ok));
            }
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> ep.modify(EpParam.FIELD_EP_ATTR_QOS, null));
            // One bad value among good ones: nothing is applied.
            long m = EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS | EpParam.FIELD_EP_ATTR_QOS;
            invalidParam(DatReturnSubtype.INVALID_ARG3,
                    () -> ep.modify(m, new EpParam().epAttr(new EpAttr().maxRecvDtos(5).qos(0x40))));
            invalidParam(DatReturnSubtype.INVALID_ARG3,
                    () -> ep.modify(m, new EpParam().epAttr(new EpAttr().maxRecvDtos(-5).qos(Qos.HIGH_THROUGHPUT))));
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> ep.modify(EpParam.FIELD_EP_ATTR_SERVICE_TYPE,
                    new EpParam().epAttr(new EpAttr().serviceType(null))));
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> ep.modify(EpParam.FIELD_EP_ATTR_TRANSPORT_SPECIFIC_ATTR,
                    new EpParam().epAttr(new EpAttr().epTransportSpecific(List.of(new NamedAttr("a", "b"))))));
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> ep.modify(EpParam.FIELD_EP_ATTR_NUM_PROVIDER_ATTR,
                    new EpParam().epAttr(new EpAttr().epProviderSpecific(List.of(new NamedAttr("a", "b"))))));
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> ep.modify(EpParam.FIELD_EP_ATTR_MAX_RDMA_READ_IN,
                    new EpParam().epAttr(new EpAttr().maxRdmaReadIn(Integer.MAX_VALUE))));
            fails(DatReturnType.MODEL_NOT_SUPPORTED, DatReturnSubtype.NO_SUBTYPE, () -> ep.modify(EpParam.FIELD_EP_ATTR_QOS,
                    new EpParam().epAttr(new EpAttr().qos(Qos.PREMIUM))));
            // Handles of another IA or freed ones.
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_PZ,
                    () -> ep.modify(EpParam.FIELD_PZ_HANDLE, new EpParam().pzHandle(p.server.pz)));
            invalidHandle(DatReturnSubtype.INVALID_HANDLE_EVD_RECV,
                    () -> ep.modify(EpParam.FIELD_RECV_EVD_HANDLE, new EpParam().recvEvdHandle(p.server.recvEvd)));
            assertEquals(before, snap(ep));
            ep.modify(m, ok);
            assertEquals(5, ep.query(EpParam.FIELD_ALL).epAttr().maxRecvDtos());
        }
    }

    @Test
    @DisplayName("EPM-34 EPC-23 EPC-24: modify to an EVD or flags that break the EVD sharing rules → INVALID_PARAMETER; the old streams stay attached")
    void evdRulesOnModify() {
        try (Pair p = new Pair()) {
            InterfaceAdapter ia = p.client.ia;
            Endpoint ep = p.client.ep; // EVD_THRESHOLD streams on client.recvEvd / client.reqEvd
            EventDispatcher x = EventDispatcher.create(ia, 32, null, EvdFlags.DTO);
            Endpoint other = Endpoint.create(ia, p.client.pz, x, null, null,
                    ia.defaultEpAttr().recvCompletionFlags(CompletionFlags.DEFAULT));
            Map<String, Object> before = snap(ep);
            invalidParam(DatReturnSubtype.INVALID_ARG3,
                    () -> ep.modify(EpParam.FIELD_RECV_EVD_HANDLE, new EpParam().recvEvdHandle(x)));
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> ep.modify(EpParam.FIELD_REQUEST_EVD_HANDLE,
                    new EpParam().requestEvdHandle(x)));
            assertEquals(before, snap(ep));
            // The old EVDs are still fed by the EP, the refused one only by the other EP.
            invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, p.client.recvEvd::free);
            invalidState(DatReturnSubtype.INVALID_STATE_EVD_IN_USE, p.client.reqEvd::free);
            other.free();
            x.free();
            // Flags that the mixed EVD (it also takes connection events) refuses.
            EventDispatcher mixed = EventDispatcher.create(ia, 32, null, EvdFlags.DTO | EvdFlags.CONNECTION);
            ep.modify(EpParam.FIELD_RECV_EVD_HANDLE, new EpParam().recvEvdHandle(mixed));
            invalidParam(DatReturnSubtype.INVALID_ARG3, () -> ep.modify(EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS,
                    new EpParam().epAttr(new EpAttr().recvCompletionFlags(CompletionFlags.DEFAULT))));
            assertEquals(CompletionFlags.EVD_THRESHOLD,
                    ep.query(EpParam.FIELD_ALL).epAttr().recvCompletionFlags());
            assertSame(mixed, ep.query(EpParam.FIELD_ALL).recvEvdHandle());
            // Both changed together is fine: a plain DTO EVD with DEFAULT flags.
            EventDispatcher plain = EventDispatcher.create(ia, 32, null, EvdFlags.DTO);
            ep.modify(EpParam.FIELD_RECV_EVD_HANDLE | EpParam.FIELD_EP_ATTR_RECV_COMPLETION_FLAGS, new EpParam()
                    .recvEvdHandle(plain).epAttr(new EpAttr().recvCompletionFlags(CompletionFlags.DEFAULT)));
            mixed.free(); // released by the EP
            assertSame(plain, ep.query(EpParam.FIELD_ALL).recvEvdHandle());
        }
    }

    @Test
    @DisplayName("EPM-35: a mask mixing allowed and state-forbidden fields → INVALID_STATE and none of them changes")
    void stateFailureIsAtomic() {
        try (EpStateFixture fx = EpStateFixture.of(St.R)) {
            Map<String, Object> before = snap(fx.ep);
            ProtectionZone pz2 = ProtectionZone.create(fx.ia);
            invalidState(DatReturnSubtype.INVALID_STATE_EP_RESERVED, () -> fx.ep.modify(
                    EpParam.FIELD_EP_ATTR_MAX_RECV_DTOS | EpParam.FIELD_PZ_HANDLE,
                    new EpParam().pzHandle(pz2).epAttr(new EpAttr().maxRecvDtos(3))));
            invalidState(DatReturnSubtype.INVALID_STATE_EP_RESERVED, () -> fx.ep.modify(
                    EpParam.FIELD_EP_ATTR_QOS | EpParam.FIELD_EP_ATTR_NUM_TRANSPORT_ATTR,
                    new EpParam().epAttr(new EpAttr().qos(Qos.HIGH_THROUGHPUT))));
            assertEquals(before, snap(fx.ep));
            pz2.free(); // never taken by the EP
        }
    }

    // ====================================================================== EPM-36

    @Test
    @DisplayName("EPM-36: concurrent modify calls on one EP (DAT leaves serialisation to the consumer; jdat is thread-safe) lose no update")
    void concurrentModifies() throws InterruptedException {
        try (Pair p = new Pair()) {
            Endpoint ep = p.client.ep;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread a = new Thread(() -> {
                try {
                    for (int i = 0; i < 500; i++) {
                        ep.modify(EpParam.FIELD_EP_ATTR_QOS, new EpParam().epAttr(new EpAttr()
                                .qos(i % 2 == 0 ? Qos.LOW_LATENCY : Qos.HIGH_THROUGHPUT)));
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            Thread b = new Thread(() -> {
                try {
                    for (int i = 0; i <= 500; i++) {
                        ep.modify(EpParam.FIELD_EP_ATTR_MAX_MESSAGE_SIZE,
                                new EpParam().epAttr(new EpAttr().maxMessageSize(1000 + i)));
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            a.start();
            b.start();
            a.join(10_000);
            b.join(10_000);
            assertFalse(a.isAlive() || b.isAlive(), "modify threads did not finish");
            assertNull(failure.get());
            EpAttr attr = ep.query(EpParam.FIELD_ALL).epAttr();
            assertEquals(Qos.HIGH_THROUGHPUT, attr.qos());
            assertEquals(1500, attr.maxMessageSize());
        }
    }
}
