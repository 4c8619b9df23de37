/**
 * The provider-neutral core: every DAT rule, once.
 *
 * <p>The classes here implement the public interfaces of {@code io.jdat} and own all semantics: the
 * endpoint state machine of API.md §7 ({@link io.jdat.core.EpStateMachine}; the Endpoint {@link io.jdat.core.CoreEp}
 * with its {@link io.jdat.core.EpConnection}, {@link io.jdat.core.RequestQueue} and
 * {@link io.jdat.core.ReceiveQueue}), the {@code dat_ep_modify} state table ({@link io.jdat.core.EpAttrRules}),
 * completion flags and EVD compatibility ({@link io.jdat.core.CompletionRules}), flushing, event
 * queues and waiting ({@link io.jdat.core.CoreEvd}, {@link io.jdat.core.CoreCno}), memory registration and
 * the local and remote protection checks ({@link io.jdat.core.MemoryTable}) and what makes a withdrawal final
 * ({@link io.jdat.core.Withdrawal}), service points and
 * connection requests. Transports ({@code io.jdat.spi}) only move bytes and handshakes.
 *
 * <p><b>Locking</b> (outermost first): a connection request's monitor ({@code CoreCr}, held while it is
 * accepted) → an EP's posting lock ({@code CoreEp.txLock}) → a transport's
 * connection lock → an EP's state lock ({@code CoreEp.lock}) → an SRQ's lock ({@code CoreSrq.lock}) → an
 * EVD's queue lock → a CNO's lock. No code calls into a transport while holding an EP's state lock or an
 * SRQ's lock, and no transport calls into the core while holding anything but its own connection lock. A
 * consumer that dequeues an SRQ receive completion tells the SRQ without any lock.
 */
package io.jdat.core;
