package io.jdat.shm;

import static io.jdat.testing.DataPath.assertEmpty;
import static io.jdat.testing.DataPath.dto;
import static io.jdat.testing.DataPath.dtoOk;
import static io.jdat.testing.DataPath.expectConn;
import static io.jdat.testing.DataPath.expectDat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdat.CompletionFlags;
import io.jdat.ConnectionRequest;
import io.jdat.CrParam;
import io.jdat.DatEvent;
import io.jdat.DatReturnType;
import io.jdat.DtoCompletionStatus;
import io.jdat.EpParam;
import io.jdat.EventNumber;
import io.jdat.IaAttr;
import io.jdat.InterfaceAdapter;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.Qos;
import io.jdat.testing.Pair;
import io.jdat.testing.net.ChildJvm;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Connection management of {@code shm}: every outcome of {@code dat_ep_connect}, qualifiers, files. */
class ShmConnectTest {
    private static final String NAMED = ShmTesting.SHM_NAMED;

    @BeforeAll
    static void register() {
        ShmTesting.register();
    }

    private static SocketAddress address(InterfaceAdapter ia) {
        return ia.query(IaAttr.FIELD_ALL, 0).iaAttr().iaAddress();
    }

    private static ConnectionRequest request(Pair p) {
        DatEvent e = p.server.next(p.crEvd);
        assertEquals(EventNumber.CONNECTION_REQUEST_EVENT, e.eventNumber());
        return e.cr();
    }

    private static void connect(Pair p, SocketAddress to, long qual, int timeoutMicros, byte[] pd) {
        p.client.ep.connect(to, qual, timeoutMicros, pd == null ? 0 : pd.length, pd, Qos.BEST_EFFORT, 0);
    }

    @Test
    @DisplayName("CON-02 CON-03 CON-05 CRQ-01 EPQ-03: private data both ways (40 and 200 bytes), addresses and"
            + " port qualifiers as each side sees them; the IA address is its owner-only instance directory")
    void privateDataAndAddresses() throws IOException {
        try (Pair p = new Pair(ShmTesting.SHM, null, 16)) {
            SocketAddress server = address(p.server.ia);
            SocketAddress client = address(p.client.ia);
            Path dir = ((UnixDomainSocketAddress) server).getPath();
            assertTrue(Files.isDirectory(dir), dir.toString());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
            p.psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            byte[] req = new byte[40];
            byte[] rep = new byte[200];
            for (int i = 0; i < rep.length; i++) {
                rep[i] = (byte) (i * 3 + 1);
                if (i < req.length) {
                    req[i] = (byte) (i * 5 + 2);
                }
            }
            connect(p, server, p.psp.connQual(), 5_000_000, req);
            ConnectionRequest cr = request(p);
            CrParam param = cr.query(CrParam.FIELD_ALL);
            assertArrayEquals(req, param.privateData());
            assertEquals(client, param.remoteIaAddress());
            cr.accept(p.server.ep, rep.length, rep);
            DatEvent e = p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            assertArrayEquals(rep, java.util.Arrays.copyOf(e.privateData(), rep.length));
            p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            EpParam cp = p.client.ep.query(EpParam.FIELD_ALL);
            assertEquals(server, cp.remoteIaAddress());
            assertEquals(p.psp.connQual(), cp.remotePortQual());
            assertEquals(param.remotePortQual(), p.server.ep.query(EpParam.FIELD_ALL).remotePortQual());
        }
    }

    @Test
    @DisplayName("CON-08: a live IA with nobody listening on the qualifier -> NON_PEER_REJECTED, D, receives"
            + " flushed")
    void nobodyListens() {
        try (Pair p = new Pair(ShmTesting.SHM, null, 16)) {
            p.client.ep.postRecv(1, new io.jdat.LmrTriplet[] {p.client.lmr.triplet(0, 64)}, 7,
                    CompletionFlags.DEFAULT);
            connect(p, address(p.server.ia), 4242, 5_000_000, null);
            expectConn(p.client, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
            dto(p.client.recvEvd, DtoCompletionStatus.ERR_FLUSHED, 7);
        }
    }

    @Test
    @DisplayName("CON-11: no instance at the address, or one whose process is dead -> UNREACHABLE")
    void unreachable() throws IOException {
        try (Pair p = new Pair(ShmTesting.SHM, null, 16)) {
            Path base = ((UnixDomainSocketAddress) address(p.client.ia)).getPath().getParent();
            connect(p, UnixDomainSocketAddress.of(base.resolve("ia-nobody-here")), 1, 5_000_000, null);
            expectConn(p.client, EventNumber.CONNECTION_EVENT_UNREACHABLE);
            p.client.ep.reset();
            // A dead instance: its directory and lock file exist, nobody holds the lock.
            Path dead = base.resolve("ia-dead-" + ProcessHandle.current().pid());
            Files.createDirectories(dead);
            try {
                Files.createFile(dead.resolve(ShmFiles.LOCK_FILE));
                connect(p, UnixDomainSocketAddress.of(dead), 1, 5_000_000, null);
                expectConn(p.client, EventNumber.CONNECTION_EVENT_UNREACHABLE);
            } finally {
                ShmFiles.deleteTree(dead);
            }
        }
    }

    @Test
    @DisplayName("CON-12: an address of another kind (an InetSocketAddress) -> DAT_INVALID_ADDRESS at once")
    void invalidAddress() {
        try (Pair p = new Pair(ShmTesting.SHM, null, 16)) {
            expectDat(DatReturnType.INVALID_ADDRESS, null,
                    () -> connect(p, new InetSocketAddress("127.0.0.1", 0), 1, 5_000_000, null));
        }
    }

    @Test
    @DisplayName("CRJ-01 CON-07: the consumer rejects -> PEER_REJECTED at the requester")
    void peerRejected() {
        try (Pair p = new Pair(ShmTesting.SHM, null, 16)) {
            p.psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            connect(p, address(p.server.ia), p.psp.connQual(), 5_000_000, new byte[] {1, 2, 3});
            request(p).reject();
            expectConn(p.client, EventNumber.CONNECTION_EVENT_PEER_REJECTED);
        }
    }

    @Test
    @DisplayName("CON-14 CRA-06 CRA-07: the consumer does not answer within the 300 ms timeout -> TIMED_OUT; the"
            + " late accept fails with ACCEPT_COMPLETION_ERROR")
    void timedOutThenAcceptFails() {
        try (Pair p = new Pair(ShmTesting.SHM, null, 16)) {
            p.psp = PublicServicePoint.createAny(p.server.ia, p.crEvd, PspFlags.CONSUMER);
            connect(p, address(p.server.ia), p.psp.connQual(), 300_000, null);
            ConnectionRequest cr = request(p);
            expectConn(p.client, EventNumber.CONNECTION_EVENT_TIMED_OUT);
            cr.accept(p.server.ep, 0, null);
            expectConn(p.server, EventNumber.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR);
            assertEmpty(p.client.connEvd, "one event at the requester");
        }
    }

    @Test
    @DisplayName("PSP-01 PSP-07: a PSP on a chosen qualifier; a second one on it is CONN_QUAL_IN_USE; once freed the"
            + " qualifier is free again and nobody listens there")
    void chosenQualifier() {
        try (Pair p = new Pair(ShmTesting.SHM, null, 16)) {
            PublicServicePoint psp = PublicServicePoint.create(p.server.ia, 777, p.crEvd, PspFlags.CONSUMER);
            expectDat(DatReturnType.CONN_QUAL_IN_USE, null,
                    () -> PublicServicePoint.create(p.server.ia, 777, p.crEvd, PspFlags.CONSUMER));
            connect(p, address(p.server.ia), 777, 5_000_000, null);
            request(p).accept(p.server.ep, 0, null);
            p.client.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            p.server.expectConn(EventNumber.CONNECTION_EVENT_ESTABLISHED);
            psp.free();
            PublicServicePoint again = PublicServicePoint.create(p.server.ia, 777, p.crEvd, PspFlags.CONSUMER);
            again.free();
            io.jdat.testing.DataPath.disconnect(p);
            p.client.ep.reset();
            connect(p, address(p.server.ia), 777, 5_000_000, null);
            expectConn(p.client, EventNumber.CONNECTION_EVENT_NON_PEER_REJECTED);
        }
    }

    @Test
    @DisplayName("IAC-01: an IA's directory, sockets and connection files are gone when it closes; a named IA"
            + " cannot be opened twice")
    void filesRemovedOnClose() {
        Path dir;
        try (Pair p = new Pair(ShmTesting.SHM, null, 16).connect()) {
            dir = ((UnixDomainSocketAddress) address(p.server.ia)).getPath();
            assertTrue(Files.isDirectory(dir));
            try (InterfaceAdapter named = InterfaceAdapter.open(NAMED, 4, null)) {
                assertEquals("ia-jdat-test-named",
                        ((UnixDomainSocketAddress) address(named)).getPath().getFileName().toString());
                expectDat(DatReturnType.INSUFFICIENT_RESOURCES, null, () -> InterfaceAdapter.open(NAMED, 4, null));
            }
        }
        assertFalse(Files.exists(dir), dir + " after close");
    }

    @Test
    @DisplayName("IAO-01: the files of an IA whose process was killed (SIGKILL) are removed by the next open on the"
            + " host, which may take the dead IA's name")
    void staleFilesAfterSigkill() throws Exception {
        Path dir;
        try (ChildJvm child = ChildJvm.start("shm-stale", io.jdat.tcp.TcpPeerMain.class, Map.of(), List.of())) {
            child.awaitLine(l -> l.startsWith("HELLO"), Duration.ofSeconds(30));
            child.writeLine("listen " + NAMED + " 1");
            String ready = child.awaitLine(l -> l.startsWith("READY") || l.startsWith("ERROR"), Duration.ofSeconds(30));
            assertTrue(ready.startsWith("READY"), ready);
            dir = Path.of(ready.substring(ready.indexOf("addr=") + 5).trim());
            assertTrue(Files.isDirectory(dir), dir.toString());
            assertTrue(ShmFiles.isLive(dir), "the child holds its lock");
            child.kill();
            child.waitFor(Duration.ofSeconds(30));
        }
        assertTrue(Files.exists(dir), "a SIGKILLed process cannot remove its files");
        assertFalse(ShmFiles.isLive(dir), "its lock went with it");
        try (InterfaceAdapter named = InterfaceAdapter.open(NAMED, 4, null)) {
            assertTrue(ShmFiles.isLive(dir), "reopened under the same name");
            try (FileChannel ch = FileChannel.open(dir.resolve(ShmFiles.LOCK_FILE), StandardOpenOption.READ)) {
                assertTrue(ch.size() >= 0);
            }
        }
        assertFalse(Files.exists(dir));
    }
}
