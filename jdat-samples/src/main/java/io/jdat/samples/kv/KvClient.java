package io.jdat.samples.kv;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.Endpoint;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.Qos;
import io.jdat.RmrTriplet;
import io.jdat.samples.common.Peer;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The client of the one-sided key-value store ({@link KvServer}): reads the table's RMR triplet from the
 * connection's private data, then looks each key up with RDMA Reads of one {@value KvTable#SLOT}-byte slot:
 * the key's home slot, then the next ones until the key or an empty slot.
 *
 * <p>Args: {@code PROVIDER ADDRESS QUALIFIER KEY...}; prints {@code KEY -> VALUE (N RDMA Reads)} or
 * {@code KEY: not found (N RDMA Reads)}.
 */
public final class KvClient {
    private KvClient() {
    }

    /**
     * Runs the lookups.
     *
     * @param args {@code PROVIDER ADDRESS QUALIFIER KEY...}
     */
    public static void main(String[] args) {
        if (args.length < 4) {
            System.err.println("usage: KvClient PROVIDER ADDRESS QUALIFIER KEY...");
            System.exit(2);
        }
        try (Peer peer = Peer.open(args[0])) {
            MemorySegment slot = peer.arena.allocate(KvTable.SLOT);
            Lmr slotLmr = peer.register(slot, MemPriv.LOCAL_WRITE);
            LmrTriplet[] into = {slotLmr.triplet(0, KvTable.SLOT)};
            Endpoint ep = peer.endpoint();
            ep.connect(peer.parse(args[1]), Long.parseLong(args[2]), 10_000_000, 0, null, Qos.BEST_EFFORT,
                    ConnectFlags.DEFAULT);
            byte[] pd = peer.next(peer.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED).privateData();
            RmrTriplet table = RmrTriplet.decode(MemorySegment.ofArray(pd), 0); // checks there are 16 bytes
            if (table.segmentLength() != (long) KvTable.SLOTS * KvTable.SLOT) {
                throw new IllegalStateException("the server's table is " + table.segmentLength() + " bytes");
            }
            for (int i = 3; i < args.length; i++) {
                byte[] key = args[i].getBytes(StandardCharsets.UTF_8);
                String value = null;
                int reads = 0;
                for (int s = KvTable.home(key); reads < KvTable.SLOTS; s = (s + 1) & (KvTable.SLOTS - 1)) {
                    RmrTriplet remote = new RmrTriplet(table.rmrContext(),
                            table.targetAddress() + (long) s * KvTable.SLOT, KvTable.SLOT);
                    ep.postRdmaRead(1, into, s, remote, CompletionFlags.DEFAULT);      // dat_ep_post_rdma_read
                    peer.next(peer.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                    reads++;
                    if (KvTable.empty(slot)) {
                        break;
                    }
                    if (KvTable.holds(slot, key)) {
                        value = KvTable.value(slot);
                        break;
                    }
                }
                String count = " (" + reads + (reads == 1 ? " RDMA Read)" : " RDMA Reads)");
                System.out.println((value == null ? args[i] + ": not found" : args[i] + " -> " + value) + count);
            }
            ep.disconnect(CloseFlags.GRACEFUL);
            peer.next(peer.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }
}
