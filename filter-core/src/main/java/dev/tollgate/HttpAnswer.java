package dev.tollgate;

import java.util.List;

/**
 * What an adapter writes for a decision: headers always, and when {@link #passes()} is false a
 * status and a body instead of calling the application.
 *
 * @param status      0 to let the request through, else the status to answer (429 or a policy's own refusal status, see {@link Refusal}; 503)
 * @param headers     headers to add to the response, in order (a name may repeat)
 * @param contentType the body's media type, or {@code null} when passing
 * @param body        the body, or {@code null} when passing
 */
public record HttpAnswer(int status, List<Header> headers, String contentType, String body) {

    /** One response header. */
    public record Header(String name, String value) {
    }

    public HttpAnswer {
        headers = List.copyOf(headers);
    }

    /** Whether the request goes on to the application. */
    public boolean passes() {
        return status == 0;
    }

    /** An answer that lets the request through and adds nothing. */
    public static final HttpAnswer PASS = new HttpAnswer(0, List.of(), null, null);
}
