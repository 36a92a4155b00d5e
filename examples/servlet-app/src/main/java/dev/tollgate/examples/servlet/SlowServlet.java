package dev.tollgate.examples.servlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code GET /api/slow?ms=N}: answers after N milliseconds (at most 10 s), to try a concurrency
 * limit ({@code tollgate.policy.<name>.concurrency}) with a few requests in parallel.
 */
public class SlowServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final long MAX_MS = 10_000;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long ms;
        try {
            ms = Math.max(0, Math.min(MAX_MS, Long.parseLong(String.valueOf(req.getParameter("ms")))));
        } catch (NumberFormatException e) {
            resp.sendError(400, "ms must be a whole number of milliseconds, at most " + MAX_MS);
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        resp.setContentType("text/plain;charset=UTF-8");
        resp.getWriter().println("slept " + ms + " ms");
    }
}
