package dev.tollgate.faults;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One token-bucket limit as the checker reads it: at most {@code capacity + perSecond × t} admitted
 * in any interval of length t. Written out as Tollgate's configuration writes it.
 */
record Rate(long capacity, long count, long perSeconds, String unit) {

    static Rate perSecond(long count, long burst) {
        return new Rate(burst, count, 1, "s");
    }

    static Rate perMinute(long count) {
        return new Rate(count, count, 60, "min");
    }

    double perSecondRate() {
        return (double) count / perSeconds;
    }

    /** The most this limit admits in an interval of {@code micros}. */
    double bound(long micros) {
        return capacity + perSecondRate() * micros / 1e6;
    }

    String text() {
        return count + "/" + unit + (capacity != count ? " burst " + capacity : "");
    }

    static String text(List<Rate> limits) {
        return limits.stream().map(Rate::text).collect(Collectors.joining("; "));
    }

    /** What a set of limits admits at most in an interval: the tightest of them. */
    static double bound(List<Rate> limits, long micros) {
        double b = Double.MAX_VALUE;
        for (Rate r : limits) {
            b = Math.min(b, r.bound(micros));
        }
        return b;
    }
}
