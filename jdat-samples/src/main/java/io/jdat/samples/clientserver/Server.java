package io.jdat.samples.clientserver;

import io.jdat.ConnectionRequest;
import io.jdat.Dat;
import io.jdat.CompletionFlags;
import io.jdat.DatEvent;
import io.jdat.DtoCompletionStatus;
import io.jdat.Endpoint;
import io.jdat.EventNumber;
import io.jdat.Lmr;
import io.jdat.LmrTriplet;
import io.jdat.MemPriv;
import io.jdat.PspFlags;
import io.jdat.PublicServicePoint;
import io.jdat.samples.common.Peer;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The server of a two-process client/server: it answers every message a client Sends with the message in
 * upper case, one client after the other. Run it, then {@link Client} in another terminal with the address
 * and qualifier it prints:
 *
 * <pre>
 * samples/run.sh clientserver.Server shm 1      # prints: listening on ADDRESS qualifier Q
 * samples/run.sh clientserver.Client shm ADDRESS Q hello world
 * </pre>
 *
 * Args: {@code PROVIDER [CLIENTS]}: serve that many clients (default 1, 0 for ever), then exit.
 */
public final class Server {
    /** The largest message. */
    static final int MAX_MESSAGE = 256;

    private Server() {
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
            // One buffer for the incoming message, one for the reply; the peer needs no remote access.
            MemorySegment in = peer.arena.allocate(MAX_MESSAGE);
            MemorySegment out = peer.arena.allocate(MAX_MESSAGE);
            Lmr inLmr = peer.register(in, MemPriv.LOCAL_WRITE);
            Lmr outLmr = peer.register(out, MemPriv.LOCAL_READ);
            PublicServicePoint psp = PublicServicePoint.createAny(peer.ia, peer.crEvd, PspFlags.CONSUMER);
            System.out.println("listening on " + peer.address() + " qualifier " + psp.connQual());
            System.out.flush(); // the client (or the test) reads this line
            for (int served = 0; clients == 0 || served < clients; served++) {
                Endpoint ep = peer.endpoint();
                // Post the receive before accepting: a message may arrive as soon as the connection is up.
                ep.postRecv(1, new LmrTriplet[] {inLmr.triplet(0, MAX_MESSAGE)}, 0, CompletionFlags.DEFAULT);
                ConnectionRequest cr = peer.next(peer.crEvd, EventNumber.CONNECTION_REQUEST_EVENT, clients == 0
                        ? Dat.TIMEOUT_INFINITE : 60_000_000).cr(); // a client comes within a minute
                cr.accept(ep, 0, null);                                               // dat_cr_accept
                peer.next(peer.connEvd, EventNumber.CONNECTION_EVENT_ESTABLISHED);
                int messages = 0;
                while (true) {
                    // A connection that ends flushes the receive, so waiting without a limit cannot hang.
                    DatEvent e = peer.nextAny(peer.recvEvd, Dat.TIMEOUT_INFINITE);
                    if (e.status() == DtoCompletionStatus.ERR_FLUSHED) {
                        break; // the client disconnected: the posted receive comes back flushed
                    }
                    if (e.status() != DtoCompletionStatus.SUCCESS) {
                        throw new IllegalStateException("receive failed: " + e.status());
                    }
                    int n = (int) e.transferredLength();
                    String text = new String(in.asSlice(0, n).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                            StandardCharsets.UTF_8);
                    byte[] reply = text.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8);
                    int len = Math.min(reply.length, MAX_MESSAGE);
                    MemorySegment.copy(MemorySegment.ofArray(reply), 0, out, 0, len);
                    // Repost the receive first, then answer: the client's next message needs a buffer.
                    ep.postRecv(1, new LmrTriplet[] {inLmr.triplet(0, MAX_MESSAGE)}, 0, CompletionFlags.DEFAULT);
                    ep.postSend(1, new LmrTriplet[] {outLmr.triplet(0, len)}, 1, CompletionFlags.DEFAULT);
                    peer.next(peer.reqEvd, EventNumber.DTO_COMPLETION_EVENT);
                    messages++;
                }
                peer.next(peer.connEvd, EventNumber.CONNECTION_EVENT_DISCONNECTED);
                ep.free();                                                            // dat_ep_free
                System.out.println("client " + (served + 1) + ": " + messages + " messages answered");
                System.out.flush();
            }
        }
    }
}
