package dev.tollgate.cdi;

import dev.tollgate.RequestView;
import java.util.Set;

/**
 * The HTTP request a call is made in, as the interceptor sees it.
 *
 * @param view    the request, for the policies' key, the allow-list and the plan
 * @param decided the policies a Tollgate filter already decided for this request (not counted again)
 */
record HttpCall(RequestView view, Set<String> decided) {

    HttpCall {
        decided = Set.copyOf(decided);
    }

    /** Where the interceptor finds the HTTP request of the current thread. Implementations are thread-safe. */
    @FunctionalInterface
    interface Source {
        /** The current HTTP request, or {@code null} outside one; never throws. */
        HttpCall current();

        /** No HTTP request ever (a container without servlets, Weld SE). */
        Source NONE = () -> null;
    }
}
