/**
 * The transport SPI: what a provider (mem, shm, tcp) implements under the provider-neutral core.
 *
 * <p>A transport carries bytes and connection handshakes and nothing else. Every DAT rule — endpoint
 * states, events, return codes, flush and completion-flag rules, local and remote protection checks —
 * lives once in {@code io.jdat.core}. The split:
 * <ul>
 * <li>{@link io.jdat.spi.TransportProvider} opens one {@link io.jdat.spi.Transport} per open IA;</li>
 * <li>the core asks the transport to {@link io.jdat.spi.Transport#listen listen} and to
 * {@link io.jdat.spi.Transport#connect connect}; the transport reports outcomes to an
 * {@link io.jdat.spi.ActiveHandler} or delivers an {@link io.jdat.spi.IncomingRequest} to an
 * {@link io.jdat.spi.IncomingHandler};</li>
 * <li>a connection is a {@link io.jdat.spi.Channel} (core → transport: submit work, close) paired with a
 * {@link io.jdat.spi.ChannelSink} (transport → core: take receive buffers, check remote access, complete
 * requests, report disconnects).</li>
 * </ul>
 * Work requests and receive buffers are pre-allocated by the core and already validated against the
 * local memory tables; a transport only moves bytes between the {@link java.lang.foreign.MemorySegment}s
 * they name.
 */
package io.jdat.spi;
