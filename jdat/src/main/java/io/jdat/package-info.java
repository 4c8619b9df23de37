/**
 * The DAT (uDAPL 1.2) consumer API: one type per DAT object, one method per {@code dat_*} function.
 *
 * <h2>Objects and their life cycle</h2>
 * A program builds its objects in the order of the C API and takes them down in the reverse order:
 * <ol>
 *   <li><b>Open an Interface Adapter</b> - {@link io.jdat.InterfaceAdapter#open InterfaceAdapter.open}
 *       ({@code dat_ia_open}) by the name of a {@link io.jdat.Registry} entry ({@code mem}, {@code shm},
 *       {@code tcp}). Every other object belongs to one IA.</li>
 *   <li><b>Create a Protection Zone</b> - {@link io.jdat.ProtectionZone#create ProtectionZone.create}
 *       ({@code dat_pz_create}): memory and Endpoints that work together share one.</li>
 *   <li><b>Create Event Dispatchers</b> - {@link io.jdat.EventDispatcher#create EventDispatcher.create}
 *       ({@code dat_evd_create}) with {@link io.jdat.EvdFlags}: typically one for receive completions and
 *       one for request completions ({@code DTO}), one for connection events ({@code CONNECTION}), and on
 *       a server one for connection requests ({@code CR}).</li>
 *   <li><b>Register memory</b> - {@link io.jdat.Lmr#create Lmr.create} ({@code dat_lmr_create}) over a
 *       {@link java.lang.foreign.MemorySegment} ({@link io.jdat.RegionDescription#forVa}). Local triplets
 *       ({@link io.jdat.LmrTriplet}, {@link io.jdat.Lmr#triplet}) name it in posts; with a remote privilege
 *       ({@link io.jdat.MemPriv}) its {@link io.jdat.RmrTriplet} ({@link io.jdat.Lmr#remoteTriplet}) is what
 *       the peer needs, sent in private data or a message ({@link io.jdat.RmrTriplet#encode}).</li>
 *   <li><b>Create an Endpoint</b> - {@link io.jdat.Endpoint#create Endpoint.create} ({@code dat_ep_create})
 *       on the PZ and the EVDs. Receives may be posted before it is connected.</li>
 *   <li><b>Connect</b> - the passive side creates a {@link io.jdat.PublicServicePoint}
 *       ({@code dat_psp_create}) or a {@link io.jdat.ReservedServicePoint}, takes the
 *       {@code DAT_CONNECTION_REQUEST_EVENT}'s {@link io.jdat.ConnectionRequest} from its CR EVD and
 *       {@link io.jdat.ConnectionRequest#accept accepts} it onto an Endpoint ({@code dat_cr_accept}) or
 *       rejects it; the active side calls {@link io.jdat.Endpoint#connect} ({@code dat_ep_connect}). Both
 *       may carry private data; both get {@code DAT_CONNECTION_EVENT_ESTABLISHED} on their connection EVD.</li>
 *   <li><b>Post and complete</b> - {@link io.jdat.Endpoint#postRecv postRecv}, {@link io.jdat.Endpoint#postSend
 *       postSend}, {@link io.jdat.Endpoint#postRdmaWrite postRdmaWrite} and {@link io.jdat.Endpoint#postRdmaRead
 *       postRdmaRead} queue data transfer operations; each completes exactly once, in order per queue, as a
 *       {@code DAT_DTO_COMPLETION_EVENT} read with {@link io.jdat.EventDispatcher#dequeue dequeue} or
 *       {@link io.jdat.EventDispatcher#waitFor waitFor} into a reusable {@link io.jdat.DatEvent}.</li>
 *   <li><b>Disconnect</b> - {@link io.jdat.Endpoint#disconnect} ({@code dat_ep_disconnect}); both sides get
 *       {@code DAT_CONNECTION_EVENT_DISCONNECTED} and every operation still queued completes with
 *       {@code DAT_DTO_ERR_FLUSHED}.</li>
 *   <li><b>Free</b> - Endpoints, service points, LMRs, EVDs and the PZ with their {@code free} methods
 *       ({@code dat_*_free}), users before what they use: an object in use fails with
 *       {@code DAT_INVALID_STATE}.</li>
 *   <li><b>Close</b> - {@link io.jdat.InterfaceAdapter#close()} ({@code dat_ia_close}). An abrupt close (the
 *       default, and what try-with-resources does) frees every object the IA still has and releases their
 *       waiters with {@code DAT_ABORT}.</li>
 * </ol>
 *
 * <h2>Memory ownership</h2>
 * Registration does not own memory: an LMR only records a segment, so the {@link java.lang.foreign.Arena}
 * that allocated it must stay open for as long as the LMR exists and any operation that names it (posted,
 * or the peer's RDMA) may touch it. Close the IA (or free the LMR and see its operations completed) first,
 * then the arena. Between a post and its completion the memory a post names belongs to the provider: the
 * consumer must not write memory a Send or RDMA Write reads from, nor read memory a Receive or RDMA Read
 * writes into. The completion of an RDMA Write says the source may be reused, not that the data is at the
 * peer: the peer learns it from a message sent after the write, or the writer from an RDMA Read that
 * follows it. Arrays and records handed to or returned by the API are copied or immutable, except the
 * private data array of a {@link io.jdat.DatEvent}, which is the provider's (read it, do not modify it).
 *
 * <h2>Threads</h2>
 * Every object is thread-safe. Posting from several threads is safe and allocates nothing; dequeuing from
 * several threads delivers each event once; a {@link io.jdat.DatEvent} belongs to the thread that passes it
 * in. {@code waitFor} spins briefly and then parks, so a waiting thread burns no core; it may be a virtual
 * thread. The provider produces completions and connection events on its own schedule; a consumer sees
 * them only through its EVDs, never through a callback.
 *
 * <h2>Errors</h2>
 * A synchronous failure throws the unchecked {@link io.jdat.DatException} with the DAT return type and
 * subtype ({@link io.jdat.DatReturnType}, {@link io.jdat.DatReturnSubtype}); outcomes a polling loop meets
 * all the time are return values ({@code dequeue} returns {@code false} for {@code DAT_QUEUE_EMPTY}).
 * Asynchronous failures arrive as events: a DTO completion's {@link io.jdat.DtoCompletionStatus}, a
 * connection event, or an asynchronous error event on the IA's async EVD.
 */
package io.jdat;
