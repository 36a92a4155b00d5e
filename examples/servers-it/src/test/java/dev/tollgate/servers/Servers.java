package dev.tollgate.servers;

/**
 * The servers the build unpacks, at the versions its {@code pom.xml} names; on the build's Java,
 * unless the method says otherwise.
 */
public final class Servers {

    private Servers() {
    }

    public static AppServer tomcat10() {
        return new Tomcat("tomcat-10.1", Build.version("tomcat10"), Build.onlyDirectoryIn(Build.serversDir().resolve("tomcat-10.1")));
    }

    public static AppServer tomcat11() {
        return new Tomcat("tomcat-11", Build.version("tomcat11"), Build.onlyDirectoryIn(Build.serversDir().resolve("tomcat-11")));
    }

    public static AppServer wildfly() {
        return new WildFly(Build.version("wildfly"), Build.onlyDirectoryIn(Build.serversDir().resolve("wildfly")));
    }

    public static AppServer payaraMicro() {
        return new PayaraMicro(Build.version("payara-micro"),
                Build.serversDir().resolve("payara-micro").resolve("payara-micro.jar"));
    }

    /** WildFly on Java 25, when this machine has a JDK 25 ({@link Jdk} finds it). */
    public static AppServer wildflyOnJava25() {
        return new OnJdk(wildfly(), 25);
    }

    /** Payara Micro 7 (Jakarta EE 11; it needs Java 21 or later) on Java 25, when this machine has a JDK 25. */
    public static AppServer payaraMicro7OnJava25() {
        return new OnJdk(new PayaraMicro(Build.version("payara-micro7"),
                Build.serversDir().resolve("payara-micro-7").resolve("payara-micro.jar")), 25);
    }

    /** Jetty 12 from {@code jetty-home}, in its {@code ee10} environment. */
    public static AppServer jetty12() {
        return new Jetty(Build.version("jetty12"), Build.onlyDirectoryIn(Build.serversDir().resolve("jetty-12")));
    }
}
