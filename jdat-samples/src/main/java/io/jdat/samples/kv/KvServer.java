package io.jdat.samples.kv;

import io.jdat.ConnectionRequest;
import io.jdat.Dat;
import io.jdat.Endpoint;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.RmrTriplet;
import io.jdat.samples.common.Peer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A one-sided key-value store: the server fills a hash table ({@link KvTable}) with the chemical elements
 * (symbol to name), registers it for remote reads only, and hands each client the table's RMR triplet
 * ({@link RmrTriplet#encode}, 16 bytes) in the accept's private data. From then on clients find values with
 * RDMA Reads alone: the server posts nothing, receives nothing and spends no CPU on a lookup - its thread
 * waits for the client to disconnect.
 *
 * <pre>
 * samples/run.sh kv.KvServer tcp 1              # prints: listening on ADDRESS qualifier Q
 * samples/run.sh kv.KvClient tcp ADDRESS Q Fe Au Xx
 * </pre>
 *
 * Args: {@code PROVIDER [CLIENTS]}: serve that many clients (default 1, 0 for ever), then exit.
 */
public final class KvServer {
    /** Symbol, name: what the server stores. */
    static final String[] ELEMENTS = {
        "H", "hydrogen", "He", "helium", "Li", "lithium", "C", "carbon", "N", "nitrogen", "O", "oxygen",
        "Na", "sodium", "Mg", "magnesium", "Al", "aluminium", "Si", "silicon", "P", "phosphorus", "S", "sulfur",
        "Cl", "chlorine", "K", "potassium", "Ca", "calcium", "Fe", "iron", "Co", "cobalt", "Ni", "nickel",
        "Cu", "copper", "Zn", "zinc", "Ag", "silver", "Sn", "tin", "Pt", "platinum", "Au", "gold",
        "Hg", "mercury", "Pb", "lead", "U", "uranium",
    };

    private KvServer() {
    }

    /**
     * Runs the server.
     *
     * @param args {@code PROVIDER [CLIENTS]}
     */
    public static void main(String[] args) {
        String provider = args.length > 0 ? args[0] : "shm";
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        try (Peer peer = Peer.open(provider)) {
            MemorySegment table = peer.arena.allocate((long) KvTable.SLOTS * KvTable.SLOT, 4096);
            for (int i = 0; i < ELEMENTS.length; i += 2) {
                KvTable.put(table, ELEMENTS[i], ELEMENTS[i + 1]);
            }
            // Remote read only: a client can neither write the table nor reach any other memory.
            Lmr lmr = peer.register(table, MemPriv.LOCAL_READ | MemPriv.LOCAL_WRITE | MemPriv.REMOTE_READ);
            MemorySegment triplet = peer.arena.allocate(RmrTriplet.BYTES);
            lmr.remoteTriplet(0, table.byteSize()).encode(triplet, 0);
            byte[] privateData = triplet.toArray(ValueLayout.JAVA_BYTE);
            PublicServicePoint psp = PublicServicePoint.createAny(peer.ia, peer.crEvd, PspFlags.CONSUMER);
            System.out.println("listening on " + peer.address() + " qualifier " + psp.connQual() + ", "
                    + ELEMENTS.length / 2 + " keys");
            System.out.flush();
            for (int served = 0; clients == 0 || served < clients; served++) {
                Endpoint ep = peer.endpoint();
                ConnectionRequest cr = peer.next(peer.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, clients == 0
                        ? Dat.TIMEOUT_INFINITE : 60_000_000).cr(); // a client comes within a minute
                cr.accept(ep, privateData.length, privateData);                      // dat_cr_accept
                peer.next(peer.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                // Nothing to do per lookup: wait for the client to leave.
                peer.next(peer.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED, Dat.TIMEOUT_INFINITE);
                System.out.println("client " + (served + 1) + " done; server DTOs posted: "
                        + ep.counters().posted());
                System.out.flush();
                ep.free();
            }
        }
    }
}
