package dev.tollgate.bench.report;

import dev.tollgate.bench.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the figures were measured on: cores, CPU model, memory, Java, Redis. No paths, no host names. */
public final class Machine {

    private Machine() {
    }

    public static Map<String, String> describe(String redisVersion) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cores (nproc)", Integer.toString(Runtime.getRuntime().availableProcessors()));
        m.put("CPU", cpuModel());
        m.put("RAM", memTotal());
        m.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        m.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("Redis", redisVersion);
        return m;
    }

    public static String markdown(Map<String, String> m) {
        StringBuilder sb = new StringBuilder();
        m.forEach((k, v) -> sb.append("- ").append(k).append(": ").append(v).append('\n'));
        return sb.toString();
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return "unknown";
    }

    private static String memTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format(java.util.Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux
        }
        return "unknown";
    }

    /** {@code nginx -v}, or null when there is none. */
    public static String nginxVersion() {
        Path nginx = RedisServer.onPath("nginx");
        return nginx == null ? null : RedisServer.run(List.of(nginx.toString(), "-v")).trim();
    }
}
