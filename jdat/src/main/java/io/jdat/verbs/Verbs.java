package io.jdat.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Downcalls into {@code libibverbs.so.1}, {@code librdmacm.so.1} and the C library, looked up at run time
 * ({@link SymbolLookup#libraryLookup}). Only exported functions of rdma-core's stable ABI are bound here; the
 * data path ({@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_post_srq_recv}, {@code ibv_poll_cq},
 * {@code ibv_req_notify_cq}) is
 * static inline in {@code verbs.h} and goes through the device context's operations table instead: see
 * {@link #POST_SEND} and its siblings, which take the function pointer as their first argument.
 *
 * <p>{@link #load()} returns the bindings, or throws {@link Unavailable} saying in one line why they cannot be
 * had (no library, a missing symbol).
 */
final class Verbs {
    private static final Linker LINKER = Linker.nativeLinker();
    /** Blocking calls into the kernel must not be critical; short ones may skip the thread-state switch. */
    private static final Linker.Option[] NONE = {};

    /*
     * The data-path handles take the function pointer as a MemorySegment (the first argument of an unbound downcall
     * handle) and every pointer of the C signature as a raw address (JAVA_LONG: in every LP64 ABI the JDK's linker
     * supports, x86-64 System V, AArch64, ppc64le, s390x and RISC-V, a 64-bit integer argument travels in the same
     * general-purpose register as a pointer). A MemorySegment argument costs, per call, a null and nativeness
     * check and, for a segment of a shared arena, an atomic acquire and release of its session; under C1 (and
     * under emulation) that was a visible share of the consumer's poll loop (docs/verbs-performance.md, "Where the time
     * goes"). The callers keep those segments alive themselves: a QP's work requests and completion array are
     * freed only under the locks that serialise their use (the core's EP transmit lock for post_send, the IA's
     * pollLock for poll_cq, the connection's receive lock for post_recv, the SRQ's lock for post_srq_recv).
     *
     * All are critical (no Java-to-native thread-state transition): post_send, post_recv and post_srq_recv queue
     * work requests and ring a doorbell (an MMIO store on a NIC; rdma_rxe and siw: a write(2) of a few bytes to
     * the uverbs fd that returns without sleeping), poll_cq and req_notify_cq read or write the CQ's memory.
     */
    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}: pointer first. */
    static final MethodHandle POST_SEND = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG,
            JAVA_LONG), Linker.Option.critical(false));
    /** {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}: pointer first. */
    static final MethodHandle POST_RECV = POST_SEND;
    /** {@code int (*post_srq_recv)(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **)}: pointer first. */
    static final MethodHandle POST_SRQ_RECV = POST_SEND;
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)}: pointer first. */
    static final MethodHandle POLL_CQ = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT,
            JAVA_LONG), Linker.Option.critical(false));
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}: pointer first. */
    static final MethodHandle REQ_NOTIFY_CQ = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, JAVA_LONG,
            JAVA_INT), Linker.Option.critical(false));

    /**
     * {@code int (*bind_mw)(struct ibv_qp *, struct ibv_mw *, struct ibv_mw_bind *)} of {@code ibv_context_ops}
     * (what the static inline {@code ibv_bind_mw} calls): pointer first, then raw addresses, as {@link #POST_SEND};
     * a type-1 bind posts a work request and rings the doorbell as post_send does, so it is critical too.
     */
    static final MethodHandle BIND_MW = POST_SEND;
    /** {@code struct ibv_mw *(*alloc_mw)(struct ibv_pd *, enum ibv_mw_type)} of {@code ibv_context_ops}: pointer first. */
    static final MethodHandle ALLOC_MW = LINKER.downcallHandle(FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
    /** {@code int (*dealloc_mw)(struct ibv_mw *)} of {@code ibv_context_ops}: pointer first. */
    static final MethodHandle DEALLOC_MW = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** Why the bindings cannot be loaded, in one line. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String reason) {
            super(reason, null, false, false);
        }
    }

    // libibverbs
    final MethodHandle getDeviceList;
    final MethodHandle freeDeviceList;
    final MethodHandle getDeviceName;
    final MethodHandle queryDevice;
    final MethodHandle allocPd;
    final MethodHandle deallocPd;
    final MethodHandle regMr;
    final MethodHandle deregMr;
    final MethodHandle createCompChannel;
    final MethodHandle destroyCompChannel;
    final MethodHandle createCq;
    final MethodHandle destroyCq;
    final MethodHandle getCqEvent;
    final MethodHandle ackCqEvents;
    final MethodHandle wcStatusStr;
    final MethodHandle modifyQp;
    final MethodHandle getAsyncEvent;
    final MethodHandle ackAsyncEvent;
    final MethodHandle createSrq;
    final MethodHandle modifySrq;
    final MethodHandle querySrq;
    final MethodHandle destroySrq;
    // librdmacm
    final MethodHandle createEventChannel;
    final MethodHandle destroyEventChannel;
    final MethodHandle createId;
    final MethodHandle destroyId;
    final MethodHandle bindAddr;
    final MethodHandle resolveAddr;
    final MethodHandle resolveRoute;
    final MethodHandle createQp;
    final MethodHandle destroyQp;
    final MethodHandle connect;
    final MethodHandle listen;
    final MethodHandle accept;
    final MethodHandle reject;
    final MethodHandle disconnect;
    final MethodHandle getCmEvent;
    final MethodHandle ackCmEvent;
    final MethodHandle getSrcPort;
    final MethodHandle getDstPort;
    // libc
    final MethodHandle poll;
    final MethodHandle errnoLocation;
    final MethodHandle pipe;
    final MethodHandle read;
    final MethodHandle write;
    final MethodHandle close;
    final MethodHandle fcntl;

    private static volatile Object loaded;

    /**
     * The bindings, loaded once per JVM.
     *
     * @throws Unavailable when {@code libibverbs.so.1} or {@code librdmacm.so.1} is missing or lacks a symbol
     */
    static Verbs load() throws Unavailable {
        Object l = loaded;
        if (l == null) {
            synchronized (Verbs.class) {
                l = loaded;
                if (l == null) {
                    try {
                        l = new Verbs();
                    } catch (Unavailable u) {
                        l = u;
                    }
                    loaded = l;
                }
            }
        }
        if (l instanceof Unavailable u) {
            throw new Unavailable(u.getMessage());
        }
        return (Verbs) l;
    }

    private Verbs() throws Unavailable {
        SymbolLookup ibv = library("libibverbs.so.1");
        SymbolLookup cm = library("librdmacm.so.1");
        SymbolLookup libc = LINKER.defaultLookup();
        getDeviceList = bind(ibv, "ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS));
        freeDeviceList = bind(ibv, "ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS));
        getDeviceName = bind(ibv, "ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
        queryDevice = bind(ibv, "ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        allocPd = bind(ibv, "ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS));
        deallocPd = bind(ibv, "ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        regMr = bind(ibv, "ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        deregMr = bind(ibv, "ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCompChannel = bind(ibv, "ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS));
        destroyCompChannel = bind(ibv, "ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCq = bind(ibv, "ibv_create_cq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS,
                JAVA_INT));
        destroyCq = bind(ibv, "ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getCqEvent = bind(ibv, "ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        ackCqEvents = bind(ibv, "ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        wcStatusStr = bind(ibv, "ibv_wc_status_str", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        getAsyncEvent = bind(ibv, "ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        ackAsyncEvent = bind(ibv, "ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS));
        createSrq = bind(ibv, "ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        modifySrq = bind(ibv, "ibv_modify_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        querySrq = bind(ibv, "ibv_query_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        destroySrq = bind(ibv, "ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        modifyQp = bind(ibv, "ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        createEventChannel = bind(cm, "rdma_create_event_channel", FunctionDescriptor.of(ADDRESS));
        destroyEventChannel = bind(cm, "rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS));
        createId = bind(cm, "rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        destroyId = bind(cm, "rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        bindAddr = bind(cm, "rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        resolveAddr = bind(cm, "rdma_resolve_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                JAVA_INT));
        resolveRoute = bind(cm, "rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        createQp = bind(cm, "rdma_create_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        destroyQp = bind(cm, "rdma_destroy_qp", FunctionDescriptor.ofVoid(ADDRESS));
        connect = bind(cm, "rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        listen = bind(cm, "rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        accept = bind(cm, "rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        reject = bind(cm, "rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE));
        disconnect = bind(cm, "rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getCmEvent = bind(cm, "rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        ackCmEvent = bind(cm, "rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getSrcPort = bind(cm, "rdma_get_src_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS));
        getDstPort = bind(cm, "rdma_get_dst_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS));
        poll = bind(libc, "poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        errnoLocation = bind(libc, "__errno_location", FunctionDescriptor.of(ADDRESS));
        pipe = bind(libc, "pipe", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        read = bind(libc, "read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
        write = bind(libc, "write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
        close = bind(libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        fcntl = LINKER.downcallHandle(libc.find("fcntl").orElseThrow(() -> new Unavailable("no fcntl")),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    }

    private static SymbolLookup library(String name) throws Unavailable {
        try {
            return SymbolLookup.libraryLookup(name, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new Unavailable(name + " not found (install rdma-core: libibverbs1 and librdmacm1)");
        } catch (IllegalCallerException e) {
            throw new Unavailable("native access is not enabled for jdat (--enable-native-access)");
        }
    }

    private static MethodHandle bind(SymbolLookup lib, String symbol, FunctionDescriptor fd) throws Unavailable {
        Optional<MemorySegment> s = lib.find(symbol);
        if (s.isEmpty()) {
            throw new Unavailable("symbol " + symbol + " not found (rdma-core too old?)");
        }
        return LINKER.downcallHandle(s.get(), fd, NONE);
    }

    /** The calling thread's {@code errno} (read right after a failed call; meaningful only then). */
    int errno() {
        try {
            MemorySegment p = (MemorySegment) errnoLocation.invokeExact();
            return p.reinterpret(4).get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Makes {@code fd} non-blocking ({@code fcntl(F_SETFL, O_NONBLOCK)}): the event calls of librdmacm and
     * libibverbs then return -1 (EAGAIN) instead of waiting when an event went away between poll(2) and the call
     * (an id destroyed meanwhile takes its queued events with it).
     */
    void nonBlocking(int fd) {
        try {
            int flags = (int) fcntl.invokeExact(fd, 3, 0); // F_GETFL
            int rc = (int) fcntl.invokeExact(fd, 4, flags | 0x800); // F_SETFL, O_NONBLOCK
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code ibv_wc_status_str}. */
    String wcStatus(int status) {
        try {
            MemorySegment p = (MemorySegment) wcStatusStr.invokeExact(status);
            return p.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "status " + status;
        }
    }
}
