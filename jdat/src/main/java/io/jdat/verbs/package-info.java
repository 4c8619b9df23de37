/**
 * The {@code verbs} transport: DAT over the kernel's RDMA stack ({@code libibverbs}, {@code librdmacm}) through
 * the FFM API, with no native code of jdat's. See {@link io.jdat.verbs.VerbsTransportProvider} and
 * {@code docs/verbs.md}.
 */
package io.jdat.verbs;
