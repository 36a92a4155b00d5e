package dev.tollgate.arquillian;

import org.jboss.arquillian.container.spi.client.container.DeploymentException;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.ShouldThrowException;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A bean method naming a policy that the configuration does not declare fails the deployment
 * ({@code TOLLGATE-003}), as an unknown policy on a JAX-RS resource does.
 *
 * <p>WildFly only. Payara Micro fails the WAR too (it logs {@code CDI deployment failure:
 * TOLLGATE-003 ...}), but then boots with nothing deployed, and arquillian-payara-micro-managed
 * 3.1 reads that boot's "Deployed": [] as a deployment without servlets, so it throws no
 * {@code DeploymentException} for {@code @ShouldThrowException} to see. On Payara Micro this
 * class is not run (the pom excludes it from the Payara Micro run), and {@link UnknownPolicyBeanPayaraMicroIT} checks
 * there that the WAR is not served.
 */
@ExtendWith(ArquillianExtension.class)
class UnknownPolicyBeanIT {

    @Deployment(testable = false)
    @ShouldThrowException(DeploymentException.class)
    static WebArchive deployment() {
        return MicroDeployments.war("cdi-unknown-policy").addClasses(MisnamedLimit.class);
    }

    /**
     * Arquillian deploys before this runs and fails the class when the deployment succeeds
     * instead of throwing; there is nothing left to check here.
     */
    @Test
    void theDeploymentFails() {
    }
}
