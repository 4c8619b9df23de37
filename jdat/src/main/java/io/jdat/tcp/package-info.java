/**
 * The {@code tcp} transport: DAT between hosts over standard iWARP (RFC 5044 MPA with RFC 6581's enhanced
 * start-up, RFC 5041 DDP, RFC 5040 RDMAP) on TCP, so a Java program without RDMA hardware does RDMA with
 * another host, including the Linux kernel's soft-iWARP. The core keeps every DAT rule; this package only
 * moves bytes and handshakes.
 *
 * <p>Files, in the manner of Linux {@code siw}:
 * <ul>
 *   <li>wire format: {@link io.jdat.tcp.Mpa} (start-up frames), {@link io.jdat.tcp.Ddp} (DDP/RDMAP header
 *       layout and opcodes), {@link io.jdat.tcp.Terminate} (error layers, types and codes);</li>
 *   <li>connection manager: {@link io.jdat.tcp.MpaActive} ({@code dat_ep_connect}),
 *       {@link io.jdat.tcp.TcpListener} and {@link io.jdat.tcp.MpaPassive} (service points, accept,
 *       reject);</li>
 *   <li>receive path: {@link io.jdat.tcp.TcpReceiver}, placing through {@link io.jdat.tcp.Placement};</li>
 *   <li>transmit path: {@link io.jdat.tcp.TcpTransmitter};</li>
 *   <li>the connection and its endings: {@link io.jdat.tcp.TcpConnection}; progress:
 *       {@link io.jdat.tcp.TcpProgress}; settings: {@link io.jdat.tcp.TcpConfig}.</li>
 * </ul>
 *
 * <p>Addressing: an IA address is an {@link java.net.InetSocketAddress} (its port is ignored), a connection
 * qualifier is a TCP port (1..65535; any other value is served by nobody); {@code dat_psp_create_any} takes an
 * ephemeral port. STags are the core's {@code rmr_context} values ({@code tag << 8 | key}, both random; the key
 * changes on every registration and bind: docs/protection.md),
 * and Tagged Offsets are the consumer's addresses. The sink of an RDMA Read is named on the wire by a
 * per-connection STag that only the Read Responses of that Read match.
 *
 * <p>Who speaks first: with RFC 6581 peer-to-peer mode (the default offer) the initiator's RTR comes first and
 * either side may send once ESTABLISHED; without it (revision 1, {@code p2p=off}, or a peer such as stock
 * {@code siw} that does not offer it), the responder sends no FPDU before the initiator's first one arrived
 * (RFC 5044 §7.1.2): what it posts meanwhile waits, in order.
 *
 * <p>Threads: handshakes run on virtual threads with blocking I/O; data moves on the posting thread (sends
 * go straight to the socket), on a consumer thread that polls an event dispatcher (receives), or on the
 * IA's one progress thread otherwise. A consumer that spins on memory for an RDMA Write to arrive, without
 * polling any EVD of the IA, relies on the progress thread's wake-up (tens of microseconds on small VMs);
 * polling an EVD in the same loop makes the consumer receive itself.
 */
package io.jdat.tcp;
