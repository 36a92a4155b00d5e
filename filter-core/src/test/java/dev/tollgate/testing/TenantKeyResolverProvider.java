package dev.tollgate.testing;

import dev.tollgate.spi.KeyResolver;
import dev.tollgate.spi.KeyResolverProvider;
import java.util.Locale;

/** A custom resolver found through ServiceLoader: {@code tenant} or {@code tenant:<Header>}. */
public final class TenantKeyResolverProvider implements KeyResolverProvider {

    @Override
    public String name() {
        return "tenant";
    }

    @Override
    public KeyResolver create(String argument) {
        String header = argument == null ? "X-Tenant" : argument;
        return request -> {
            String v = request.header(header);
            return v == null ? null : v.toLowerCase(Locale.ROOT);
        };
    }
}
