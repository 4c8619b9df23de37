package io.jdat;

import io.jdat.core.Core;
import java.net.SocketAddress;

/**
 * An Endpoint ({@code DAT_EP_HANDLE}): one end of a reliable connection, with a receive queue and a
 * request queue (send, RDMA Read, RDMA Write, RMR bind). Its states and transitions are those of API.md
 * §7; {@link #getStatus()} reports them.
 *
 * <p><b>Concurrency:</b> the post calls are safe from several threads at once and allocate nothing; posts
 * from one thread are executed in order, and posts from several threads in the order the provider accepts
 * them. Configuration calls ({@link #modify}, {@link #connect}, {@link #disconnect}, {@link #reset},
 * {@link #free}) are also thread-safe, though DAT leaves their serialisation to the consumer (EPM-36).
 *
 * <p><b>Memory:</b> posted I/O vectors name registered memory by LMR context; the memory must stay valid
 * until the completion is dequeued. The {@code LmrTriplet[]} array itself is the consumer's again as
 * soon as the post returns ({@link IovOwnership#CONSUMER}).
 */
public sealed interface Endpoint extends DatHandle, AutoCloseable permits io.jdat.core.CoreEp {
    /**
     * {@code dat_ep_create}: an Endpoint in {@link EpState#UNCONNECTED} (or
     * {@link EpState#UNCONFIGURED_UNCONNECTED} while it lacks a PZ or a connect EVD).
     *
     * @param ia         the IA
     * @param pz         the Protection Zone, or {@code null} (set it later with {@link #modify})
     * @param recvEvd    EVD for receive completions, or {@code null}
     * @param requestEvd EVD for send, RDMA and bind completions, or {@code null}
     * @param connectEvd EVD for connection events, or {@code null} (set it later)
     * @param epAttributes the attributes, or {@code null} for {@link InterfaceAdapter#defaultEpAttr()}
     * @return the EP
     * @throws DatException {@code DAT_INVALID_HANDLE}, {@code DAT_INVALID_PARAMETER} (bad attribute or EVD
     *                      completion-flag combination, EPC-18, EPC-23..26), {@code DAT_MODEL_NOT_SUPPORTED},
     *                      {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static Endpoint create(InterfaceAdapter ia, ProtectionZone pz, EventDispatcher recvEvd,
            EventDispatcher requestEvd, EventDispatcher connectEvd, EpAttr epAttributes) {
        return Core.ia(ia).epCreate(pz, recvEvd, requestEvd, connectEvd, epAttributes);
    }

    /**
     * {@code dat_ep_create_with_srq}: an Endpoint whose receive buffers come only from {@code srq}
     * ({@link #postRecv} on it is {@code DAT_INVALID_PARAMETER}, AMB-12). The association lasts until
     * {@link #free}: {@link #reset} keeps it and {@link #modify} cannot change it. Receive completions go to
     * this EP's {@code recvEvd}, always signalled; the EP may be in another PZ than the SRQ
     * ({@code srq_ep_pz_difference_supported}): the SRQ's PZ governs the receive buffers, the EP's PZ its
     * requests and incoming RDMA (ECS-04).
     *
     * @param ia           the IA
     * @param pz           the EP's Protection Zone, or {@code null}
     * @param recvEvd      EVD for the receive completions, or {@code null}
     * @param requestEvd   EVD for send, RDMA and bind completions, or {@code null}
     * @param connectEvd   EVD for connection events, or {@code null}
     * @param srq          the SRQ
     * @param epAttributes the attributes; required (its {@code max_recv_iov} is not used)
     * @return the EP, in {@link EpState#UNCONNECTED}
     * @throws DatException {@code DAT_INVALID_PARAMETER} ({@code null} or invalid attributes),
     *                      {@code DAT_INVALID_HANDLE} (also {@code INVALID_HANDLE_SRQ}), {@code DAT_MODEL_NOT_SUPPORTED},
     *                      {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static Endpoint createWithSrq(InterfaceAdapter ia, ProtectionZone pz, EventDispatcher recvEvd,
            EventDispatcher requestEvd, EventDispatcher connectEvd, SharedReceiveQueue srq, EpAttr epAttributes) {
        return Core.ia(ia).epCreateWithSrq(pz, recvEvd, requestEvd, connectEvd, srq, epAttributes);
    }

    /**
     * {@code dat_ep_query}.
     *
     * @param epParamMask {@code DAT_EP_PARAM_MASK}
     * @return a new parameter block (jdat fills every field)
     * @throws DatException {@code DAT_INVALID_PARAMETER} (undefined mask bits), {@code DAT_INVALID_HANDLE}
     */
    EpParam query(long epParamMask);

    /**
     * {@code dat_ep_modify}: changes the fields selected by the mask, subject to the state table of
     * API.md §7.4. On any failure nothing is changed.
     *
     * @param epParamMask {@code DAT_EP_PARAM_MASK}
     * @param epParam     the new values
     * @throws DatException {@code DAT_INVALID_PARAMETER} (unmodifiable field, bad value),
     *                      {@code DAT_INVALID_STATE} (field not modifiable in this state), {@code DAT_INVALID_HANDLE}
     */
    void modify(long epParamMask, EpParam epParam);

    /**
     * {@code dat_ep_connect}: requests a connection; the outcome arrives on the connect EVD.
     *
     * @param remoteIaAddress the peer IA's address
     * @param remoteConnQual  the peer's connection qualifier
     * @param timeout         microseconds (unsigned, &gt; 0) or {@link Dat#TIMEOUT_INFINITE}
     * @param privateDataSize bytes of {@code privateData} to send (0..max_private_data_size)
     * @param privateData     the private data ({@code null} allowed when the size is 0)
     * @param qos             {@link Qos}
     * @param connectFlags    {@link ConnectFlags}
     * @throws DatException {@code DAT_INVALID_STATE}, {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_ADDRESS},
     *                      {@code DAT_MODEL_NOT_SUPPORTED}, {@code DAT_INSUFFICIENT_RESOURCES}, {@code DAT_INVALID_HANDLE}
     */
    void connect(SocketAddress remoteIaAddress, long remoteConnQual, int timeout, int privateDataSize,
            byte[] privateData, int qos, int connectFlags);

    /**
     * {@code dat_ep_dup_connect}: connects to the same remote end as the connected {@code dupEp}.
     *
     * @param dupEp           a connected EP
     * @param timeout         as {@link #connect}
     * @param privateDataSize as {@link #connect}
     * @param privateData     as {@link #connect}
     * @param qos             as {@link #connect}
     * @throws DatException as {@link #connect}; {@code DAT_INVALID_STATE} when {@code dupEp} is not connected
     */
    void dupConnect(Endpoint dupEp, int timeout, int privateDataSize, byte[] privateData, int qos);

    /**
     * {@code dat_ep_disconnect}: terminates the connection or aborts its establishment.
     *
     * @param disconnectFlags {@link CloseFlags#ABRUPT} or {@link CloseFlags#GRACEFUL}
     * @throws DatException {@code DAT_INVALID_STATE} (U, R, PCP, TCP), {@code DAT_INVALID_PARAMETER},
     *                      {@code DAT_INVALID_HANDLE}
     */
    void disconnect(int disconnectFlags);

    /**
     * {@code dat_ep_post_send}.
     *
     * @param numSegments     entries of {@code localIov} to use (0 sends an empty message)
     * @param localIov        the gather list
     * @param userCookie      echoed in the completion
     * @param completionFlags {@link CompletionFlags}: SUPPRESS, SOLICITED_WAIT, UNSIGNALLED, BARRIER_FENCE
     * @throws DatException {@code DAT_INVALID_STATE}, {@code DAT_INVALID_PARAMETER}, {@code DAT_PROTECTION_VIOLATION},
     *                      {@code DAT_PRIVILEGES_VIOLATION}, {@code DAT_INSUFFICIENT_RESOURCES}, {@code DAT_INVALID_HANDLE}
     */
    void postSend(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags);

    /**
     * {@code dat_ep_post_recv}: posts a receive buffer (legal in every state; refused with
     * {@code DAT_INVALID_PARAMETER} on an EP of a {@link SharedReceiveQueue}, AMB-12).
     *
     * @param numSegments     entries of {@code localIov} to use
     * @param localIov        the scatter list
     * @param userCookie      echoed in the completion
     * @param completionFlags {@link CompletionFlags#DEFAULT} or {@link CompletionFlags#UNSIGNALLED}
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_PROTECTION_VIOLATION},
     *                      {@code DAT_PRIVILEGES_VIOLATION}, {@code DAT_INSUFFICIENT_RESOURCES}, {@code DAT_INVALID_HANDLE}
     */
    void postRecv(int numSegments, LmrTriplet[] localIov, long userCookie, int completionFlags);

    /**
     * {@code dat_ep_post_rdma_read}: reads the whole remote range into {@code localIov}.
     *
     * @param numSegments     entries of {@code localIov} to use
     * @param localIov        the sink
     * @param userCookie      echoed in the completion
     * @param remoteIov       the peer's range (the seed's {@code remote_buffer})
     * @param completionFlags SUPPRESS, UNSIGNALLED, BARRIER_FENCE
     * @throws DatException as {@link #postSend}, and {@code DAT_LENGTH_ERROR} when the local buffer is smaller
     *                      than the remote range
     */
    void postRdmaRead(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteIov,
            int completionFlags);

    /**
     * {@code dat_ep_post_rdma_write}: writes all of {@code localIov} into the remote range.
     *
     * <p>The target learns nothing from an RDMA Write itself (RWR-08), and DAT does not order the bytes of
     * one write: a target that polls the last word of the range may see it before earlier bytes. Tell the
     * target with a later send on the same connection (its receive completes after the write's bytes are
     * in place), or read the data with acquire semantics after a value the initiator wrote with a separate,
     * later write.
     *
     * @param numSegments     entries of {@code localIov} to use
     * @param localIov        the source
     * @param userCookie      echoed in the completion
     * @param remoteIov       the peer's range
     * @param completionFlags SUPPRESS, UNSIGNALLED, BARRIER_FENCE
     * @throws DatException as {@link #postSend}, and {@code DAT_LENGTH_ERROR} when the remote range is smaller
     *                      than the local data
     */
    void postRdmaWrite(int numSegments, LmrTriplet[] localIov, long userCookie, RmrTriplet remoteIov,
            int completionFlags);

    /**
     * The result of {@code dat_ep_get_status}: a snapshot.
     *
     * @param epState     ep_state
     * @param recvIdle    recv_idle: no receive outstanding
     * @param requestIdle request_idle: no send, RDMA or bind outstanding
     */
    record Status(EpState epState, boolean recvIdle, boolean requestIdle) {
    }

    /**
     * {@code dat_ep_get_status}.
     *
     * @return the state and idleness
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    Status getStatus();

    /**
     * {@code dat_ep_reset}: {@link EpState#DISCONNECTED} → {@link EpState#UNCONNECTED}; a no-op in
     * UNCONNECTED. Completions not yet dequeued may be lost.
     *
     * @throws DatException {@code DAT_INVALID_STATE}, {@code DAT_INVALID_HANDLE}
     */
    void reset();

    /**
     * {@code dat_ep_free}: destroys the EP, aborting any connection.
     *
     * @throws DatException {@code DAT_INVALID_STATE} in RESERVED, PASSIVE_CONNECTION_PENDING,
     *                      TENTATIVE_CONNECTION_PENDING; {@code DAT_INVALID_HANDLE}
     */
    void free();

    /** {@link #free()}, for try-with-resources. */
    @Override
    default void close() {
        free();
    }

    /**
     * The result of {@code dat_ep_recv_query}.
     *
     * @param nbufsAllocated receive buffers held by the EP and not completed
     * @param bufsAllocSpan  the span of message sequence numbers they cover (≥ count)
     */
    record RecvQueryResult(int nbufsAllocated, int bufsAllocSpan) {
    }

    /**
     * {@code dat_ep_recv_query}: for an EP of an SRQ, the SRQ buffers it has taken and not completed.
     *
     * @return the counts ({@link Dat#VALUE_UNKNOWN} where unknown)
     * @throws DatException {@code DAT_INVALID_HANDLE}
     */
    RecvQueryResult recvQuery();

    /**
     * {@code dat_ep_set_watermark}: arms a one-shot soft high watermark event (async EVD, reason
     * {@link AsyncReason#SRQ_SOFT_HIGH_WATERMARK_EVENT}) and a hard watermark that breaks the connection,
     * for the receive buffers the EP holds. Allowed in every state.
     *
     * @param softHighWatermark soft mark or {@link Dat#WATERMARK_INFINITE}
     * @param hardHighWatermark hard mark or {@link Dat#WATERMARK_INFINITE}
     * @throws DatException {@code DAT_INVALID_PARAMETER}, {@code DAT_INVALID_HANDLE}
     */
    void setWatermark(int softHighWatermark, int hardHighWatermark);

    /**
     * The Endpoint's data transfer counters since it was created (not reset by {@code dat_ep_reset}): posted,
     * completed, flushed and failed requests and receives, and the bytes they moved. A jdat extension with no
     * DAT 1.2 function; counting allocates nothing on the post and completion paths.
     *
     * @return a snapshot
     * @throws DatException {@code DAT_INVALID_HANDLE} when the Endpoint was freed
     */
    DtoCounters counters();
}
