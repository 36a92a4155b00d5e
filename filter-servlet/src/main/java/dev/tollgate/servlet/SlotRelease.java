package dev.tollgate.servlet;

import dev.tollgate.Permit;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRequest;

/**
 * Gives a request's concurrency slots back when its response is done: at once when the servlet
 * answered synchronously, else when its asynchronous processing completes, times out or fails
 * (a client that disconnects shows as an error when the application next writes, and only as a
 * timeout while the request is idle: Tomcat does not notice it sooner; see ClientDisconnectIT).
 * The permit releases once, so
 * the several events of one request (a timeout, then the completion) free one slot.
 *
 * <p>Stateless apart from the permit it holds; thread-safe.
 */
final class SlotRelease implements AsyncListener {

    private final Permit permit;

    private SlotRelease(Permit permit) {
        this.permit = permit;
    }

    /** Called after the filter chain returned, normally or by an exception. */
    static void whenDone(ServletRequest request, Permit permit) {
        if (!permit.held()) {
            return;
        }
        boolean async;
        try {
            async = request.isAsyncStarted();
            if (async) {
                request.getAsyncContext().addListener(new SlotRelease(permit));
            }
        } catch (IllegalStateException e) {
            async = false; // completed already: no event will come
        }
        if (!async) {
            permit.release();
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        permit.release();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        permit.release();
    }

    @Override
    public void onError(AsyncEvent event) {
        permit.release();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // startAsync again in a later dispatch drops the listeners: stay registered
        event.getAsyncContext().addListener(this);
    }
}
