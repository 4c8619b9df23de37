package io.jdat;

import io.jdat.core.Core;

/**
 * An open instance of an Interface Adapter ({@code DAT_IA_HANDLE}): the root of every other DAT object.
 *
 * <p><b>Concurrency:</b> thread-safe. {@link #close(int)} with {@link CloseFlags#ABRUPT} may be called
 * while other threads use the IA's objects: their blocked waits return {@code DAT_ABORT}, and later
 * calls fail with {@code DAT_INVALID_HANDLE}.
 */
public sealed interface InterfaceAdapter extends DatHandle, AutoCloseable permits io.jdat.core.CoreIa {
    /**
     * {@code dat_ia_open}: opens the IA named in the registry ({@link Registry}), requesting API
     * version {@value Dat#VERSION_MAJOR}.{@value Dat#VERSION_MINOR}.
     *
     * @param iaName          the registered IA name, e.g. {@code "mem"}
     * @param asyncEvdMinQlen the minimum queue length of a provider-created async EVD
     * @param asyncEvd        {@code null} to have the provider create the async EVD; an existing EVD
     *                        created with {@link EvdFlags#ASYNC}, used unchanged; or
     *                        {@link EventDispatcher#ASYNC_EXISTS}
     * @return the open IA; its async EVD is {@link #asyncEvd()}
     * @throws DatException {@code DAT_PROVIDER_NOT_FOUND}, {@code DAT_INVALID_PARAMETER},
     *                      {@code DAT_INVALID_HANDLE}, {@code DAT_INSUFFICIENT_RESOURCES}
     */
    static InterfaceAdapter open(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd) {
        return openv(iaName, asyncEvdMinQlen, asyncEvd, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, Dat.THREADSAFE);
    }

    /**
     * {@code dat_ia_openv}: {@link #open} with an explicit API version and thread-safety request.
     *
     * @param iaName          the registered IA name
     * @param asyncEvdMinQlen the minimum queue length of a provider-created async EVD
     * @param asyncEvd        see {@link #open}
     * @param daplMajor       the requested major API version
     * @param daplMinor       the requested minor API version (a registered minor ≥ this one matches)
     * @param threadSafe      whether a thread-safe provider is required
     * @return the open IA
     * @throws DatException as {@link #open}, with {@code PROVIDER_NOT_FOUND} subtypes
     *                      {@code NAME_NOT_REGISTERED}, {@code MAJOR_NOT_FOUND}, {@code MINOR_NOT_FOUND},
     *                      {@code THREAD_SAFETY_NOT_FOUND}
     */
    static InterfaceAdapter openv(String iaName, int asyncEvdMinQlen, EventDispatcher asyncEvd, int daplMajor,
            int daplMinor, boolean threadSafe) {
        return Core.iaOpen(iaName, asyncEvdMinQlen, asyncEvd, daplMajor, daplMinor, threadSafe, Registry.OPEN_IAS);
    }

    /**
     * The result of {@code dat_ia_query}.
     *
     * @param asyncEvd     async_evd_handle ({@link EventDispatcher#OUT_OF_SCOPE} when the IA was opened
     *                     with {@link EventDispatcher#ASYNC_EXISTS})
     * @param iaAttr       ia_attributes
     * @param providerAttr provider_attributes
     */
    record QueryResult(EventDispatcher asyncEvd, IaAttr iaAttr, ProviderAttr providerAttr) {
    }

    /**
     * {@code dat_ia_query}.
     *
     * @param iaAttrMask       {@code DAT_IA_ATTR_MASK} ({@link IaAttr#FIELD_ALL} for all)
     * @param providerAttrMask {@code DAT_PROVIDER_ATTR_MASK} ({@link ProviderAttr#FIELD_ALL} for all)
     * @return the async EVD and the attributes (jdat fills every field whatever the masks)
     * @throws DatException {@code DAT_INVALID_PARAMETER} for undefined mask bits, {@code DAT_INVALID_HANDLE}
     */
    QueryResult query(long iaAttrMask, long providerAttrMask);

    /**
     * {@code dat_ia_close}.
     *
     * @param iaFlags {@link CloseFlags#ABRUPT}: destroy every object of the IA, release waiters;
     *                {@link CloseFlags#GRACEFUL}: only if the consumer already freed everything
     * @throws DatException {@code DAT_INVALID_STATE} (graceful with live objects),
     *                      {@code DAT_INVALID_PARAMETER} (bad flags), {@code DAT_INVALID_HANDLE}
     */
    void close(int iaFlags);

    /** {@code dat_ia_close(ia, DAT_CLOSE_DEFAULT)}: an abrupt close, for try-with-resources. */
    @Override
    default void close() {
        close(CloseFlags.DEFAULT);
    }

    /** {@return the async EVD: the {@code OUT async_evd_handle} of {@code dat_ia_open}} */
    EventDispatcher asyncEvd();

    /** {@return the provider's default Endpoint attributes (what {@code dat_ep_create} uses for NULL attributes)} */
    EpAttr defaultEpAttr();

    /**
     * The data transfer counters of every Endpoint this IA has had, freed ones included (see
     * {@link DtoCounters}). A jdat extension with no DAT 1.2 function.
     *
     * @return a snapshot: the sum over the Endpoints
     * @throws DatException {@code DAT_INVALID_HANDLE} when the IA was closed
     */
    DtoCounters counters();
}
