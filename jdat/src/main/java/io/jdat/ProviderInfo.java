package io.jdat;

/**
 * One registry entry as {@code dat_registry_list_providers} reports it: the C {@code DAT_PROVIDER_INFO}
 * (API.md §4.11).
 *
 * <p>The version numbers are {@code DAT_UINT32} values held in an {@code int}; read them as unsigned
 * ({@link Integer#toUnsignedString(int)}, {@link Integer#compareUnsigned(int, int)}).
 *
 * @param iaName           {@code ia_name}: the name passed to {@code dat_ia_open}
 * @param daplVersionMajor {@code dapl_version_major}: the API major version the provider implements
 * @param daplVersionMinor {@code dapl_version_minor}: the API minor version the provider implements
 * @param threadSafe       {@code is_thread_safe}
 */
public record ProviderInfo(String iaName, int daplVersionMajor, int daplVersionMinor, boolean threadSafe) {
}
