package dev.tollgate.servers;

/** The servers the build unpacks, at the versions its {@code pom.xml} names. */
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
}
