/**
 * Scaffolding the built-in transports share ({@code mem}, {@code shm}, {@code tcp}, {@code verbs}): the
 * provider's name, an IA's address, limits and connection log, its open listeners, attempts, requests and
 * connections and the order {@code dat_ia_close} closes them in ({@link io.jdat.transport.IaTransport}), the
 * once-only outcome of a connect attempt and the answer-once rule of a received request
 * ({@link io.jdat.transport.OutgoingAttempt}, {@link io.jdat.transport.ReceivedRequest}), a request that
 * arrives as an accepted stream ({@link io.jdat.transport.StreamRequest}), the timer of
 * connection-management deadlines, the parsing of IA parameters, the accept loop, the idle strategy of a
 * progress thread, the progress thread itself and the consumer's hand-over with it
 * ({@link io.jdat.transport.SelectorTransport}). Not exported, and not part of the SPI: a transport in another module
 * writes its own. Like the transports, this package depends on the API ({@code io.jdat}) and the SPI
 * ({@code io.jdat.spi}) only, never on the core ({@code io.jdat.core}); see docs/architecture.md.
 */
package io.jdat.transport;
