package dev.tollgate.arquillian;

import dev.tollgate.cdi.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/** Names a policy that no deployment of these tests declares. */
@ApplicationScoped
public class MisnamedLimit {

    @RateLimited("no-such-policy")
    public String call() {
        return "never";
    }
}
