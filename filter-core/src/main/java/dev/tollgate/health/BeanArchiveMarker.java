package dev.tollgate.health;

import jakarta.enterprise.context.Dependent;

/**
 * Nothing but a bean-defining annotation: it makes Tollgate's jar an implicit bean archive (with
 * its {@code META-INF/beans.xml}, {@code annotated}), and a server that starts CDI only for
 * applications with a bean (Payara, WildFly) then starts it for a plain servlet application too,
 * so that {@link TollgateHealthExtension} runs and the server's metric registries can be found.
 * Never injected; stateless.
 */
@Dependent
final class BeanArchiveMarker {

    BeanArchiveMarker() {
    }
}
