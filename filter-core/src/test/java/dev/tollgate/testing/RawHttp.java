package dev.tollgate.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * HTTP/1.1 over a plain socket, the request target sent byte for byte: {@code java.net.http}
 * and {@code URI} normalise paths ({@code /./}, {@code ..}) and reject some, which would hide the
 * very spellings a coverage test must send.
 */
public final class RawHttp {

    /** A response: status, headers (the first field line of each name, names lower case), body. */
    public record Response(int status, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    /** Sends one request on a new connection and reads the response to its end. */
    public static Response send(int port, String method, String target, String... headers) throws IOException {
        StringBuilder request = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1\r\nConnection: close\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        request.append("\r\n");
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int end = all.indexOf("\r\n\r\n");
            String head = end < 0 ? all : all.substring(0, end);
            String[] lines = head.split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> fields = new TreeMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    fields.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
                }
            }
            return new Response(status, fields, end < 0 ? "" : all.substring(end + 4));
        }
    }
}
