package io.jdat.core;

/**
 * The registry's count of open IAs by name, which the core keeps up to date: {@code dat_ia_open} counts one
 * more once it has opened an IA, {@code dat_ia_close} one less, so that {@code dat_registry_remove_provider}
 * refuses a name in use ({@code DAT_PROVIDER_IN_USE}, REG-04). The registry hands its count to the core with
 * each open ({@link Core#iaOpen}); consumers cannot reach it.
 */
public interface OpenIaCount {
    /**
     * Counts one more open IA of {@code iaName}.
     *
     * @param iaName the registered name the IA was opened with
     * @throws io.jdat.DatException {@code DAT_PROVIDER_NOT_FOUND}/{@code DAT_NAME_NOT_REGISTERED} if the name is
     *                              no longer registered
     */
    void acquire(String iaName);

    /**
     * Counts one open IA of {@code iaName} less; called exactly once per successful {@link #acquire}.
     *
     * @param iaName the name given to {@link #acquire}
     */
    void release(String iaName);
}
