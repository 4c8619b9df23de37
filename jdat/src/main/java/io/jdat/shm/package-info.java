/**
 * The {@code shm} transport: DAT between processes on one host through shared memory, under the
 * provider-neutral core (which keeps every DAT rule; this package only moves bytes and sets up connections).
 *
 * <h2>Addressing and connection management</h2>
 * Each open IA owns an instance directory under the provider's owner-only base directory
 * ({@link io.jdat.shm.ShmFiles}); its IA address is that directory as a {@link java.net.UnixDomainSocketAddress}
 * (with the IA parameter {@code name=NAME}, the well-known {@code <base>/ia-NAME}). A connection qualifier names a
 * listening Unix domain socket {@code q-<qual>} in it ({@code ShmListener}). The active side ({@code ShmActive})
 * creates the connection file in its own directory, formats it ({@code ConnectionLayout}: two rings, two status
 * blocks, two staging areas) and sends a request with its private data ({@code CmMessage}); the passive side
 * ({@code ShmPassive}) checks the requester's user and file, maps it, and the consumer accepts or rejects. Outcomes
 * of {@code dat_ep_connect}: ESTABLISHED; PEER_REJECTED; NON_PEER_REJECTED (a live IA with nobody listening on the
 * qualifier, a refusal, a malformed answer); UNREACHABLE (no instance at the address, or its process is dead);
 * TIMED_OUT (the core's timer). The socket stays open for the connection's life: the kernel closes it when a
 * process dies, however it dies, which is how a peer's death is seen at once.
 *
 * <h2>Data path</h2>
 * Per connection, one single-producer ring per direction ({@link io.jdat.shm.ShmRing}, laid out by
 * {@link io.jdat.shm.RingDescriptor}) carries this side's requests as records ({@code Records}). An RDMA Write into
 * the peer's {@link io.jdat.shm.ShmMemory} is stored by the requester itself when it can check it ({@code DirectStore}):
 * the peer publishes its remotely reachable {@code ShmMemory} contexts in a table only it writes
 * ({@code ContextTable}), the requester checks the Write against it with the core's rule and the peer EP's PZ,
 * copies into its mapping of the peer's file and completes the Write at once; a withdrawal waits for a store in
 * progress before {@code dat_lmr_free} or the unbind returns. Every other transfer, and a Write that check does not
 * pass, is moved by the side that owns the target memory, after its core checked the access ({@code resolveRemote}):
 * <ul>
 *   <li>up to the inline size (16 KiB): the bytes travel in the ring (two copies, no system call);</li>
 *   <li>memory from {@link io.jdat.shm.ShmMemory} on the requester's side: the owner maps the requester's file
 *       and copies once with {@code MemorySegment.copy};</li>
 *   <li>other native memory: the owner reads or writes the requester's process with cross-memory attach
 *       ({@link io.jdat.shm.CrossMemory}, one copy by the kernel), when the kernel permits it (probed at connection
 *       setup);</li>
 *   <li>otherwise, fragments through the ring for Sends and RDMA Writes, and the owner's staging area for RDMA
 *       Reads.</li>
 * </ul>
 * A request completes when the peer has handled its record (the ring's consumer position passed it): a Send
 * once placed in a receive buffer, an RDMA Write once placed, an RDMA Read once its data is in place. A Send that
 * finds no receive waits, with everything behind it, for up to {@code jdat.shm.rnrTimeoutMillis} (2 s), then fails
 * with {@code DAT_DTO_ERR_RECEIVER_NOT_READY} and the connection breaks.
 *
 * <h2>Progress</h2>
 * A consumer that polls an event dispatcher of the IA moves the bytes on its own thread; otherwise the IA's
 * progress thread ({@code ShmProgress}) does, spinning briefly after traffic and then sleeping until a doorbell
 * (one byte on the connection's socket, rung only when the peer announced that it sleeps). A poll looks only at
 * the connections with recent traffic and at those the peers marked on the IA's ready board
 * ({@code ReadyBoard}, a page in its instance directory), so that an empty poll costs the same with one idle
 * connection or thousands; every connection is still looked at once a second, whatever the board says.
 *
 * <h2>A hostile or dead peer</h2>
 * Everything the peer wrote into the mapping is validated before use; a violation, a refused access, a message
 * longer than its buffer breaks the connection with the exact DTO status for the request at fault
 * ({@code ShmReceiver}). A peer that dies (SIGKILL included) is BROKEN at once through its socket, and every
 * outstanding DTO is flushed. Files are created owner-only and removed when the IA closes, or, after a crash, by
 * the next {@code shm} IA opened on the host.
 */
package io.jdat.shm;
