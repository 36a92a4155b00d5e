package dev.tollgate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tollgate.config.TollgateConfig;
import dev.tollgate.testing.RedisCluster;
import dev.tollgate.testing.RedisProcess;
import dev.tollgate.testing.TestCertificates;
import dev.tollgate.testing.TestConfigs;
import dev.tollgate.testing.TestRedis;
import dev.tollgate.testing.TestRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cluster and Sentinel over TLS, with the trust store and the client certificate of
 * {@code tollgate.redis.tls.*}: every server asks for a client certificate
 * ({@code tls-auth-clients yes}), so a connection made without the configured socket factory (to a
 * node the cluster names, to a sentinel, to the master a sentinel names) would fail.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisTlsTopologiesIT {

    static Map<String, String> tls(TestCertificates certs) {
        Map<String, String> m = new HashMap<>();
        m.put("tollgate.redis.tls", "true");
        m.put("tollgate.redis.tls.truststore", certs.caPem().toString());
        m.put("tollgate.redis.tls.keystore", certs.clientKeyStore().toString());
        m.put("tollgate.redis.tls.keystore-password", TestCertificates.PASSWORD);
        m.put("tollgate.redis.timeout", "2s"); // TLS handshakes on a busy machine, not what is tested
        m.put("tollgate.redis.key-prefix", "tls:");
        m.put("tollgate.policy.default.limits", "10/h"); // the bucket outlives the test: EXISTS finds it
        m.put("tollgate.jmx", "false");
        m.put("tollgate.metrics", "none");
        return m;
    }

    static String[] args(String[] tls, String... more) {
        List<String> all = new ArrayList<>(List.of(tls));
        all.addAll(List.of(more));
        return all.toArray(new String[0]);
    }

    static void decidedBy(RedisProcess redis, RateLimiter rl, String client) {
        Decision d = rl.check(TestRequest.get("/api").from(client));
        assertEquals(Decision.Source.REDIS, d.source(), d + "; " + rl.health());
        assertEquals("1", redis.command("EXISTS", "tls:default:{ip=" + client + "}:default"), "the bucket is in this Redis");
    }

    /**
     * A one-node cluster with {@code tls-cluster yes}: it names itself by its TLS port to TLS
     * clients, so Jedis' connection to the node of a slot goes through the same socket factory.
     */
    @Test
    void clusterOverTls() throws Exception {
        TestCertificates certs = TestCertificates.shared();
        // The cluster bus listens on the TLS port + 10000 (Redis 6.2 cannot move it; 7 could, with
        // cluster-port, which 6.2 refuses as an unknown option): a TLS port whose bus port is free.
        int tlsPort = RedisCluster.portWithFreeBusPort();
        try (RedisProcess node = TestRedis.startProcess(args(certs.serverArgs(tlsPort, true, true),
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--tls-cluster", "yes"))) {
            String[] addSlots = new String[2 + RedisCluster.SLOTS]; // ADDSLOTSRANGE is Redis 7's
            addSlots[0] = "CLUSTER";
            addSlots[1] = "ADDSLOTS";
            for (int slot = 0; slot < RedisCluster.SLOTS; slot++) {
                addSlots[2 + slot] = Integer.toString(slot);
            }
            node.command(addSlots);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!node.command("CLUSTER", "INFO").contains("cluster_state:ok")) {
                if (System.nanoTime() > deadline) {
                    fail("the one-node cluster never became ok: " + node.command("CLUSTER", "INFO") + "\n" + node.log());
                }
                Thread.sleep(20); // polling a starting cluster, not timing the test
            }
            Map<String, String> m = tls(certs);
            m.put("tollgate.redis.cluster", "127.0.0.1:" + tlsPort);
            try (RateLimiter rl = RateLimiter.create(TestConfigs.of(m))) {
                decidedBy(node, rl, "192.0.2.41");
            }
            m.remove("tollgate.redis.tls.keystore");
            m.remove("tollgate.redis.tls.keystore-password");
            try (RateLimiter rl = RateLimiter.create(TestConfigs.of(m))) {
                Decision d = rl.check(TestRequest.get("/api").from("192.0.2.42"));
                assertEquals(Decision.Source.LOCAL, d.source(), "without the client certificate: " + d);
                assertTrue(rl.health().lastFailure().contains("tollgate.redis.tls.keystore"), rl.health().lastFailure());
            }
        }
    }

    /**
     * A master and a sentinel, both TLS only for clients that show a certificate; the sentinel
     * watches the master over TLS ({@code tls-replication yes}) by its TLS port, and names it so.
     */
    @Test
    void sentinelOverTls() {
        TestCertificates certs = TestCertificates.shared();
        int masterTls = RedisProcess.freePort();
        int sentinelTls = RedisProcess.freePort();
        try (RedisProcess master = TestRedis.startProcess(args(certs.serverArgs(masterTls, true, true),
                "--tls-replication", "yes"));
             RedisProcess sentinel = TestRedis.startProcess(0, "sentinel monitor tollgate 127.0.0.1 " + masterTls + " 1\n",
                     args(certs.serverArgs(sentinelTls, true, true), "--tls-replication", "yes", "--sentinel"))) {
            Map<String, String> m = tls(certs);
            m.put("tollgate.redis.sentinel.master", "tollgate");
            m.put("tollgate.redis.sentinel.nodes", "127.0.0.1:" + sentinelTls);
            try (RateLimiter rl = RateLimiter.create(TestConfigs.of(m))) {
                decidedBy(master, rl, "192.0.2.43");
            }
            m.put("tollgate.redis.tls.truststore", certs.otherCaPem().toString());
            try (RateLimiter rl = RateLimiter.create(TestConfigs.of(m))) {
                Decision d = rl.check(TestRequest.get("/api").from("192.0.2.44"));
                assertEquals(Decision.Source.LOCAL, d.source(), "with a CA that signed nothing: " + d);
                assertTrue(rl.health().lastFailure().contains("not trusted"), rl.health().lastFailure());
            }
        }
    }
}
