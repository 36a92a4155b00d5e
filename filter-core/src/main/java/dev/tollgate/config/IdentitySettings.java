package dev.tollgate.config;

import dev.tollgate.AllowList;
import dev.tollgate.ClientAddresses;
import dev.tollgate.Plans;
import java.util.Objects;

/**
 * Who the client is: how its address is found (trusted proxies, grouping), which clients are never
 * limited, and which plan a client is on. Built by {@link #builder()}; immutable and thread-safe.
 */
public final class IdentitySettings {

    /** No trusted proxy, no allow-list, no plans. */
    public static final IdentitySettings DEFAULTS = builder().build();

    private final ClientAddresses clientAddresses;
    private final AllowList allowList;
    private final Plans plans;

    private IdentitySettings(Builder b) {
        this.clientAddresses = Objects.requireNonNull(b.clientAddresses, "clientAddresses");
        this.allowList = Objects.requireNonNull(b.allowList, "allowList");
        this.plans = Objects.requireNonNull(b.plans, "plans");
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How the client's address is found: trusted proxies, the forwarded header, grouping by prefix. */
    public ClientAddresses clientAddresses() {
        return clientAddresses;
    }

    /** Clients never limited ({@code tollgate.allow-list}). */
    public AllowList allowList() {
        return allowList;
    }

    /** The plans, if any ({@code tollgate.plans}), and how a client's plan is chosen. */
    public Plans plans() {
        return plans;
    }

    @Override
    public String toString() {
        return "IdentitySettings[clientAddresses=" + clientAddresses + ", allowList=" + allowList + ", plans=" + plans + "]";
    }

    /** Builds {@link IdentitySettings}, every value starting at its key's default. Not thread-safe. */
    public static final class Builder {
        private ClientAddresses clientAddresses = ClientAddresses.DEFAULT;
        private AllowList allowList = AllowList.NONE;
        private Plans plans = Plans.NONE;

        private Builder() {
        }

        public Builder clientAddresses(ClientAddresses addresses) {
            this.clientAddresses = addresses;
            return this;
        }

        public Builder allowList(AllowList list) {
            this.allowList = list;
            return this;
        }

        public Builder plans(Plans p) {
            this.plans = p;
            return this;
        }

        public IdentitySettings build() {
            return new IdentitySettings(this);
        }
    }
}
