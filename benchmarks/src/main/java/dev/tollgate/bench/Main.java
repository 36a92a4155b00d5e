package dev.tollgate.bench;

import dev.tollgate.bench.appcpu.AppCpuRun;
import dev.tollgate.bench.cluster.ClusterRun;
import dev.tollgate.bench.decision.DecisionRun;
import dev.tollgate.bench.leasing.LeasingRun;
import dev.tollgate.bench.engine.EngineRun;
import dev.tollgate.bench.growth.GrowthRun;
import dev.tollgate.bench.scenario.ScenarioRun;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Entry point of the harness (run from the benchmarks folder by Maven's exec:exec):
 *
 * <pre>
 * decision [quick] [threads=1,4,16,64] [iterations=3] [time=1s] [warmup=2] [only=regex] [pool=16] [timeout=10s] [prof=name]
 * leasing [quick] [threads=64] [rate=20000] [prefetch=100] [hold=200ms] [slice=2s] [rounds=5]
 * cluster [threads=64] [rounds=5] [time=1s] [pool=16]
 * engine [quick] [forks=1] [iterations=5] [warmup=3] [time=1s] [clients=10000,50000] [only=localCheck|redisCheck] [prof=name]
 * growth [quick] [only=redis,policies,hops] [keys=1000,10000,100000,1000000] [redis-rounds=20000] [rounds=200000]
 * appcpu [phase=10s] [rounds=5] [warmup=15s] [rate=2000] [connections=100] [clients=10000] [paths=bare,ping,allowed,refused] [jfr] [perf-map] [calls [calls-per-round=20000]]
 * scenario [quick] [runs=3] [phases=ABDFECG] [phase=20s] [warmup=6s] [rate=2000] [connections=128] [clients=50] [client-rate=5] [slots=8] [hold=5ms] [cpu=100us] [no-nginx] [no-pool-phase] [app-jfr]
 *          [app-java=JDK home, else $TOLLGATE_BENCH_APP_JAVA] [app-threads=platform|virtual|platform,virtual] [vthreads]
 * </pre>
 *
 * Results go to {@code target/bench/}. Every benchmark here goes through Tollgate's public API; the
 * store-level ones (the stores alone, the engine against its store, the bounded maps, the script
 * against its floor, once {@code floor}) are in filter-core's {@code jmh} source set ({@code -Pjmh}).
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "decision";
        Options options = new Options(Arrays.asList(args).subList(Math.min(1, args.length), args.length));
        Path out = Path.of("target", "bench").toAbsolutePath();
        int status;
        try {
            switch (what) {
                case "decision":
                    DecisionRun.run(out.resolve("decision"), options);
                    break;
                case "leasing":
                    LeasingRun.run(out.resolve("leasing"), options);
                    break;
                case "engine":
                    EngineRun.run(out.resolve("engine"), options);
                    break;
                case "scenario":
                    ScenarioRun.run(out.resolve("scenario"), options);
                    break;
                case "growth":
                    GrowthRun.run(out.resolve("growth"), options);
                    break;
                case "appcpu":
                    AppCpuRun.run(out.resolve("appcpu"), options);
                    break;
                case "cluster":
                    ClusterRun.run(out.resolve("cluster"), options);
                    break;
                case "floor":
                    System.err.println("The script against its floor is a micro-benchmark of filter-core's jmh set now:"
                            + " mvn -o -pl filter-core -Pjmh test-compile exec:exec"
                            + " -Djmh.main=dev.tollgate.internal.redis.ScriptFloor -Djmh.args=quick");
                    System.exit(2);
                    break;
                default:
                    System.err.println("Unknown benchmark '" + what + "': use -Dbench=decision, -Dbench=engine, -Dbench=scenario, -Dbench=leasing, -Dbench=cluster, -Dbench=growth or -Dbench=appcpu");
                    System.exit(2);
            }
            status = 0;
        } catch (IllegalStateException e) {
            System.err.println("[bench] " + e.getMessage());
            status = 1;
        }
        System.exit(status);
    }
}
