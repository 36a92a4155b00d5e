package dev.tollgate.arquillian;

import java.net.URL;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code TollgateFilter} declared in a {@code web.xml} before a tiny servlet, configured through MicroProfile Config. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ServletFilterIT {

    private static final String WEB_XML = """
            <?xml version="1.0" encoding="UTF-8"?>
            <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0" metadata-complete="true">
              <servlet>
                <servlet-name>ping</servlet-name>
                <servlet-class>dev.tollgate.arquillian.PingServlet</servlet-class>
              </servlet>
              <servlet-mapping>
                <servlet-name>ping</servlet-name>
                <url-pattern>/ping</url-pattern>
              </servlet-mapping>
              <filter>
                <filter-name>tollgate</filter-name>
                <filter-class>dev.tollgate.servlet.TollgateFilter</filter-class>
                <async-supported>true</async-supported>
              </filter>
              <filter-mapping>
                <filter-name>tollgate</filter-name>
                <url-pattern>/*</url-pattern>
              </filter-mapping>
            </web-app>
            """;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return MicroDeployments.war("servlet-filter").addClasses(PingServlet.class).setWebXML(new StringAsset(WEB_XML));
    }

    @ArquillianResource
    URL base;

    @Test
    void refusesWithTheStandard429AfterItsLimit() throws Exception {
        RateLimitedHttp.assertLimitedAfterBurst(base.toURI().resolve("ping"));
    }
}
