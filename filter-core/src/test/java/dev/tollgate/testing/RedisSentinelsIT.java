package dev.tollgate.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisSentinelClient;

/** {@link RedisSentinels} works: a Jedis 8 sentinel client finds the master and follows a failover. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisSentinelsIT {

    @Test
    void aSentinelClientFollowsTheMasterThroughAFailover() {
        try (RedisSentinels sentinels = RedisSentinels.start()) {
            Set<HostAndPort> addresses = new HashSet<>();
            sentinels.sentinelAddresses().forEach(a -> addresses.add(HostAndPort.from(a)));
            try (RedisSentinelClient client = RedisSentinelClient.builder()
                    .masterName(sentinels.masterName())
                    .sentinels(addresses)
                    .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(1000).build())
                    .build()) {
                RedisProcess first = sentinels.currentMaster();
                assertEquals(first.address(), client.getCurrentMaster().toString());
                assertEquals("OK", client.set("before", "1"));
                assertEquals("1", client.get("before"));
                try (Jedis direct = new Jedis(first.host(), first.port())) {
                    direct.set("acknowledged", "yes");
                    assertEquals(1, direct.waitReplicas(1, 5000), "the replica acknowledged the write");
                }

                RedisProcess killed = sentinels.killMaster();
                RedisProcess promoted = sentinels.awaitNewMaster(Duration.ofSeconds(40));
                assertNotEquals(killed.port(), promoted.port());
                assertEquals(promoted.address(), sentinels.currentMasterAddress());

                assertEquals("OK", Retry.until(Duration.ofSeconds(15), () -> client.set("after", "2")));
                assertEquals(promoted.address(), client.getCurrentMaster().toString(), "the client follows the new master");
                assertEquals("2", promoted.command("GET", "after"));
                assertEquals("yes", client.get("acknowledged"));
            }
        }
    }
}
