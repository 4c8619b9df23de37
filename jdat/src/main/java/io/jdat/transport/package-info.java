/**
 * Scaffolding the built-in transports share ({@code mem}, {@code shm}, {@code tcp}, {@code verbs}): the
 * parsing of IA parameters, the idle strategy of a progress thread and the progress thread itself. Not
 * exported, and not part of the SPI: a transport in another module writes its own. Like the transports,
 * this package depends on the API ({@code io.jdat}) and the SPI ({@code io.jdat.spi}) only, never on the
 * core ({@code io.jdat.core}); see docs/architecture.md.
 */
package io.jdat.transport;
