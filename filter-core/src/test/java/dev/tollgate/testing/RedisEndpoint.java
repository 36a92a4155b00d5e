package dev.tollgate.testing;

/** A Redis that tests can talk to. */
public interface RedisEndpoint {

    String host();

    int port();

    /** {@code redis://host:port} */
    default String uri() {
        return "redis://" + host() + ":" + port();
    }

    /** Where it came from, for the test log: "redis-server from PATH", "embedded-redis binary", ... */
    String kind();

    /** A command through Redis' own protocol, for set-up and inspection; the reply as text. */
    default String command(String... args) {
        return Resp.command(host(), port(), args);
    }
}
