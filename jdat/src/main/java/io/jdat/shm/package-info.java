/**
 * Building blocks of the {@code shm} transport (issue 5: DAT between processes on one host through shared
 * memory). The transport itself is not written yet, so no IA opens on {@code shm}; what is here is tested on
 * its own, across two JVMs:
 *
 * <ul>
 *   <li>{@link io.jdat.shm.ShmRing} with {@link io.jdat.shm.RingDescriptor}: a single-producer single-consumer
 *       record ring in a memory-mapped file, in the manner of Agrona's one-to-one ring buffer: a documented
 *       layout with padded counters, release/acquire publication through {@code VarHandle}s on the
 *       {@code MemorySegment}, a consumer-sleeping flag for a doorbell, and a consumer that validates every
 *       record and counter so that a peer writing garbage is reported ({@link io.jdat.shm.RingCorruptException})
 *       and never makes it read or write outside the ring;</li>
 *   <li>{@link io.jdat.shm.CrossMemory}: Linux cross-memory attach ({@code process_vm_readv}/{@code writev})
 *       through the FFM linker, the kernel copying once between two processes' registered memory, with its
 *       permission probe for choosing a bounce-buffer fallback;</li>
 *   <li>{@link io.jdat.shm.ShmFiles}: the owner-only directory and files of IA instances, with a liveness
 *       lock per instance so the next open removes what a crashed (even SIGKILLed) process left.</li>
 * </ul>
 *
 * <p>The plan for the transport on top: connection management over a Unix domain socket per listener
 * (private data, reject, every {@code dat_ep_connect} outcome; the socket stays open as the liveness channel,
 * so a dead peer is seen at once, and carries the doorbell byte when the consumer sleeps); per connection
 * one ring file with a ring per direction; small messages inline; large Sends and RDMA moved by
 * {@code CrossMemory} by the side that owns the memory, after its core's checks; a bounce path through the
 * ring where cross-memory attach is denied.
 */
package io.jdat.shm;
