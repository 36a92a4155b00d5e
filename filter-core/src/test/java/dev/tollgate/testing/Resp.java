package dev.tollgate.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** The smallest Redis client: one command, the reply flattened to text. For test set-up only. */
final class Resp {

    private Resp() {
    }

    static String command(String host, int port, String... args) {
        return command(host, port, null, null, args);
    }

    /**
     * One command, after {@code AUTH [user] password} on the same connection when a password is
     * given; a refused AUTH is the reply ({@code ERR:...}).
     */
    static String command(String host, int port, String user, String password, String... args) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream());
            if (password != null) {
                write(out, user == null ? new String[] {"AUTH", password} : new String[] {"AUTH", user, password});
                String auth = read(in);
                if (auth == null || auth.startsWith("ERR:")) {
                    return auth;
                }
            }
            write(out, args);
            return read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(OutputStream out, String... args) throws IOException {
        StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.UTF_8);
            sb.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
        }
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+': case ':':
                return line;
            case '-':
                return "ERR:" + line;
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] b = in.readNBytes(n + 2);
                return new String(b, 0, n, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        sb.append('\n');
                    }
                    sb.append(read(in));
                }
                return sb.toString();
            }
            default:
                throw new IOException("unexpected reply type " + (char) type);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                in.read();
                break;
            }
            b.write(c);
        }
        return b.toString(StandardCharsets.UTF_8);
    }
}
