package io.jdat.samples.clientserver;

import io.jdat.CloseFlags;
import io.jdat.CompletionFlags;
import io.jdat.ConnectFlags;
import io.jdat.Endpoint;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.Qos;
import io.jdat.samples.common.Peer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The client of the two-process client/server ({@link Server}): connects to the address and qualifier the
 * server printed, Sends each word, prints the server's answer, and disconnects.
 *
 * <p>Args: {@code PROVIDER ADDRESS QUALIFIER WORD...}
 */
public final class Client {
    private Client() {
    }

    /**
     * Runs the client.
     *
     * @param args {@code PROVIDER ADDRESS QUALIFIER WORD...}
     */
    public static void main(String[] args) {
        if (args.length < 4) {
            System.err.println("usage: Client PROVIDER ADDRESS QUALIFIER WORD...");
            System.exit(2);
        }
        try (Peer peer = Peer.open(args[0])) {
            MemorySegment out = peer.arena.allocate(Server.MAX_MESSAGE);
            MemorySegment in = peer.arena.allocate(Server.MAX_MESSAGE);
            Lmr outLmr = peer.register(out, MemPriv.LOCAL_READ);
            Lmr inLmr = peer.register(in, MemPriv.LOCAL_WRITE);
            Endpoint ep = peer.endpoint();
            ep.connect(peer.parse(args[1]), Long.parseLong(args[2]), 10_000_000, 0, null, Qos.BEST_EFFORT,
                    ConnectFlags.DEFAULT);                                             // dat_ep_connect
            peer.next(peer.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
            for (int i = 3; i < args.length; i++) {
                byte[] word = args[i].getBytes(StandardCharsets.UTF_8);
                int len = Math.min(word.length, Server.MAX_MESSAGE);
                MemorySegment.copy(MemorySegment.ofArray(word), 0, out, 0, len);
                // The answer's buffer is posted before the question leaves.
                ep.postRecv(1, new LmrTriplet[] {inLmr.triplet(0, Server.MAX_MESSAGE)}, i, CompletionFlags.DEFAULT);
                ep.postSend(1, new LmrTriplet[] {outLmr.triplet(0, len)}, i, CompletionFlags.DEFAULT);
                peer.next(peer.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                int n = (int) peer.next(peer.recvEvd, EventNumber.DTO_COMPLETION_EVENT).transferredLength();
                System.out.println(args[i] + " -> " + new String(in.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE),
                        StandardCharsets.UTF_8));
            }
            ep.disconnect(CloseFlags.GRACEFUL);                                       // dat_ep_disconnect
            peer.next(peer.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
        }
    }
}
