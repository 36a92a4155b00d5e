package dev.tollgate.servers;

/** The servlet example on Tomcat 10.1 (Servlet 6.0), configured by environment variables only. */
class Tomcat10ServletAppIT extends TomcatServletAppContract {

    Tomcat10ServletAppIT() {
        super(Servers.tomcat10());
    }
}
