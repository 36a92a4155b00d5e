package dev.tollgate.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tollgate.Permit;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestEvent;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The listener that gives slots back when a servlet request ends: each permit once, and never a throw. */
class SlotReleaseListenerTest {

    /** A servlet request whose only working method is {@code getAttribute(PERMITS)}. */
    private static ServletRequestEvent ending(Supplier<Object> permits) {
        ServletRequest request = (ServletRequest) Proxy.newProxyInstance(ServletRequest.class.getClassLoader(),
                new Class<?>[] {ServletRequest.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getAttribute") && TollgateRequestFilter.PERMITS.equals(args[0])) {
                        return permits.get();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        ServletContext context = (ServletContext) Proxy.newProxyInstance(ServletContext.class.getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        return new ServletRequestEvent(context, request);
    }

    @Test
    void givesEachPermitOfTheRequestBackOnceHoweverOftenItEnds() {
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        List<Permit> permits = new ArrayList<>(List.of(Permit.releasing(first::incrementAndGet),
                Permit.releasing(second::incrementAndGet)));
        SlotReleaseListener listener = new SlotReleaseListener();
        listener.requestDestroyed(ending(() -> permits));
        listener.requestDestroyed(ending(() -> permits));
        permits.forEach(Permit::release); // the response filter, later: nothing more
        assertEquals(1, first.get());
        assertEquals(1, second.get());
    }

    @Test
    void aRequestWithoutPermitsOrWithAnythingElseUnderTheNameIsLeftAlone() {
        SlotReleaseListener listener = new SlotReleaseListener();
        for (Object other : new Object[] {null, "permits", List.of("not a permit", 42), new Object()}) {
            listener.requestDestroyed(ending(() -> other));
        }
        listener.requestDestroyed(ending(() -> {
            throw new IllegalStateException("request recycled");
        }));
    }
}
