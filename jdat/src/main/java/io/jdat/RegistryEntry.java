package io.jdat;


/**
 * One provider line of the static registry file {@code dat.conf} (API.md §9), field by field.
 *
 * <p>The record itself does not validate: {@link io.jdat.core.DatConfParser} only produces well-formed entries,
 * and {@link io.jdat.Registry#addProvider(RegistryEntry)} checks entries handed to it. Version numbers
 * are {@code DAT_UINT32} values held in an {@code int} and compare as unsigned.
 *
 * @param iaName         field 1: the IA name passed to {@code dat_ia_open}
 * @param apiKind        field 2, first character: {@code 'u'} (uDAPL) or {@code 'k'} (kDAPL)
 * @param apiMajor       field 2: API major version ({@code u1.2} → 1)
 * @param apiMinor       field 2: API minor version ({@code u1.2} → 2)
 * @param threadSafe     field 3: {@code threadsafe} (true) or {@code nonthreadsafe} (false)
 * @param isDefault      field 4: {@code default} (true) or {@code nondefault} (false)
 * @param library        field 5: the provider library; for jdat the transport name ({@code "mem"},
 *                       {@code "tcp"}, {@code "shm"}); a C library path such as
 *                       {@code libdaplcma.so.1} is kept verbatim
 * @param providerId     field 6, {@code id} of {@code id.major.minor} (may itself contain dots)
 * @param providerMajor  field 6, {@code major} of {@code id.major.minor}
 * @param providerMinor  field 6, {@code minor} of {@code id.major.minor}
 * @param iaParams       field 7: provider instance data, e.g. {@code "ib0 0"}; may be empty
 * @param platformParams field 8: platform parameters, e.g. {@code "driver_name=tavor"}; may be empty
 */
public record RegistryEntry(
        String iaName,
        char apiKind,
        int apiMajor,
        int apiMinor,
        boolean threadSafe,
        boolean isDefault,
        String library,
        String providerId,
        int providerMajor,
        int providerMinor,
        String iaParams,
        String platformParams) {

    /** {@return the {@code DAT_PROVIDER_INFO} of this entry: name, API version and thread safety} */
    public ProviderInfo toProviderInfo() {
        return new ProviderInfo(iaName, apiMajor, apiMinor, threadSafe);
    }

    /**
     * This entry as one {@code dat.conf} line (without line end) that {@link io.jdat.core.DatConfParser} reads back
     * to an equal entry. Fields that are empty or contain blanks, {@code #} or {@code "} are
     * double-quoted, with {@code "} and {@code \} escaped by a backslash.
     *
     * @return the line
     * @throws IllegalStateException if a field is null or holds a line break or NUL, which the file
     *                               format cannot carry
     */
    public String toConfLine() {
        StringBuilder sb = new StringBuilder();
        field(sb, iaName);
        sb.append(' ').append(apiKind).append(Integer.toUnsignedString(apiMajor))
                .append('.').append(Integer.toUnsignedString(apiMinor));
        sb.append(' ').append(threadSafe ? "threadsafe" : "nonthreadsafe");
        sb.append(' ').append(isDefault ? "default" : "nondefault");
        sb.append(' ');
        field(sb, library);
        sb.append(' ');
        field(sb, providerId + '.' + Integer.toUnsignedString(providerMajor) + '.'
                + Integer.toUnsignedString(providerMinor));
        sb.append(' ');
        field(sb, iaParams);
        sb.append(' ');
        field(sb, platformParams);
        return sb.toString();
    }

    private static void field(StringBuilder sb, String value) {
        if (value == null) {
            throw new IllegalStateException("null field cannot be written to dat.conf");
        }
        boolean quote = value.isEmpty();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\n' || c == '\r' || c == '\0') {
                throw new IllegalStateException("line break or NUL cannot be written to dat.conf");
            }
            if (c == ' ' || c == '\t' || c == 0x0B || c == '\f' || c == '#' || c == '"') {
                quote = true;
            }
        }
        if (!quote) {
            sb.append(value);
            return;
        }
        sb.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append('"');
    }
}
