/**
 * The {@code mem} transport: DAT inside one JVM, the embedded default.
 *
 * <p>An IA's address is a {@link io.jdat.mem.MemAddress} (its name); a connection qualifier names a
 * listener at that address. Every IA opened under the same name shares the address, like several opens of
 * one NIC. Data moves with one {@link java.lang.foreign.MemorySegment#copy} straight between the two
 * registered segments — the sender's gather list into the receiver's posted buffer, or the RDMA source
 * into the RDMA sink — on the thread that posts, like a NIC's DMA. A message that finds no posted receive
 * waits (receiver-not-ready) until the peer posts one or {@link io.jdat.mem.MemConnection#RNR_TIMEOUT_MILLIS}
 * passes, which breaks the connection.
 *
 * <p>Connection management runs on one daemon thread per JVM ({@code jdat-mem-cm}), so that connection
 * outcomes arrive asynchronously, as from a network.
 */
package io.jdat.mem;
