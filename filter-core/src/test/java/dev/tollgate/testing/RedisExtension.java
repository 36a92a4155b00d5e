package dev.tollgate.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives tests a Redis: a {@link RedisEndpoint} parameter is the JVM's shared Redis
 * ({@link TestRedis#shared()}); a {@link RedisProcess} parameter is a new process of the test's
 * own, stopped when the test (or, for a {@code @BeforeAll} parameter, the class) ends.
 */
public final class RedisExtension implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        Class<?> type = p.getParameter().getType();
        return type == RedisEndpoint.class || type == RedisProcess.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        if (p.getParameter().getType() == RedisEndpoint.class) {
            return TestRedis.shared();
        }
        RedisProcess process = TestRedis.startProcess();
        e.getStore(ExtensionContext.Namespace.create(RedisExtension.class, p.getIndex()))
                .put("process", (AutoCloseable) process::close);
        return process;
    }
}
