package dev.tollgate.config;

import dev.tollgate.AddressRanges;
import dev.tollgate.Algorithm;
import dev.tollgate.ClientAddresses;
import dev.tollgate.Concurrency;
import dev.tollgate.Costs;
import dev.tollgate.Limit;
import dev.tollgate.Mode;
import dev.tollgate.Outbound;
import dev.tollgate.Plans;
import dev.tollgate.Policy;
import dev.tollgate.Prefetch;
import dev.tollgate.Refusal;
import dev.tollgate.RequestMatcher;
import dev.tollgate.config.text.ConfigMessages;
import dev.tollgate.config.text.KeyResolvers;
import dev.tollgate.spi.KeyResolver;
import dev.tollgate.spi.KeyResolverProvider;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** Reads who a client is (addresses behind proxies), the plans and the policies. */
final class PolicyReader {

    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}");

    private final ConfigReader r;

    PolicyReader(ConfigReader r) {
        this.r = r;
    }

    ClientAddresses clientAddresses() {
        AddressRanges trusted = r.get(Settings.TRUSTED_PROXIES);
        ClientAddresses.Header header = r.get(Settings.FORWARDED_HEADER);
        int v4 = r.get(Settings.IPV4_PREFIX);
        int v6 = r.get(Settings.IPV6_PREFIX);
        return new ClientAddresses(trusted, header, v4, v6);
    }

    Plans plans(ClientAddresses addresses) {
        Optional<ConfigValue> declared = r.value(Settings.PLANS);
        if (declared.isEmpty()) {
            return Plans.NONE;
        }
        List<String> names = r.parse(declared.get(), Settings.PLANS, List.of());
        if (names.isEmpty()) {
            return Plans.NONE;
        }
        String selectorText = r.value(Settings.PLAN_SELECTOR).map(ConfigValue::value)
                .orElse(Settings.PLAN_SELECTOR.defaultValue());
        Plans.Selector selector = Plans.Selector.ROLE;
        String header = null;
        String lower = selectorText.toLowerCase(Locale.ROOT);
        if (lower.startsWith("header:") && HEADER_NAME.matcher(selectorText.substring(7).trim()).matches()) {
            selector = Plans.Selector.HEADER;
            header = selectorText.substring(7).trim();
            if (addresses.trusted().isEmpty()) {
                r.misfit(Settings.PLAN_SELECTOR.name(), "a plan header is believed only from trusted proxies, and "
                        + Settings.TRUSTED_PROXIES + " is not set", "'role', or set " + Settings.TRUSTED_PROXIES);
            }
        } else if (!lower.equals("role")) {
            r.misfit(Settings.PLAN_SELECTOR.name(), "'" + selectorText + "' is not a selector", Settings.PLAN_SELECTOR.accepted());
        }
        Optional<ConfigValue> def = r.value(Settings.PLAN_DEFAULT);
        String defaultPlan = null;
        if (def.isEmpty()) {
            r.problems.add(ConfigMessages.missing(Settings.PLAN_DEFAULT.name(), "one of " + names
                    + ", the plan of requests that show none"));
        } else if (!names.contains(def.get().value())) {
            r.problems.add(ConfigMessages.badValue(def.get(), "it is not a declared plan", "one of " + names));
        } else {
            defaultPlan = def.get().value();
        }
        Map<String, String> markers = new LinkedHashMap<>();
        for (String plan : names) {
            Setting<String> marker = (selector == Plans.Selector.ROLE ? Settings.PLAN_ROLE : Settings.PLAN_VALUE).forPlan(plan);
            String value = r.get(marker);
            markers.put(plan, selector == Plans.Selector.ROLE ? value : value.toLowerCase(Locale.ROOT));
        }
        return new Plans(names, defaultPlan, selector, header, markers);
    }

    /** The declared names; a bad list reads no policy at all, rather than blaming keys the operator never meant. */
    List<String> policyNames() {
        return r.get(Settings.POLICIES, List.of());
    }

    List<Policy> policies(List<String> declared, Map<String, KeyResolverProvider> providers, Plans plans) {
        List<Policy> out = new ArrayList<>();
        for (String name : declared) {
            Policy p = policy(name, providers, plans);
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    private Policy policy(String name, Map<String, KeyResolverProvider> providers, Plans plans) {
        int before = r.problems.size();
        Setting<List<Limit>> limitsSetting = Settings.POLICY_LIMITS.forPolicy(name);
        String limitsKey = limitsSetting.name();
        Optional<ConfigValue> limitsValue = r.value(limitsSetting);
        List<Limit> limits = null;
        Concurrency concurrency = concurrency(name);
        if (limitsValue.isEmpty() && (concurrency != null || r.value(Settings.POLICY_CONCURRENCY.forPolicy(name)).isPresent())) {
            limits = List.of();
        } else if (limitsValue.isEmpty()) {
            r.problems.add(ConfigMessages.missing(limitsKey, "'10/s burst 20' or '100/min; 5000/day' (or set "
                    + Settings.POLICY_CONCURRENCY.forPolicy(name) + ")"));
        } else {
            limits = r.parse(limitsValue.get(), limitsSetting, null);
        }
        Map<String, List<Limit>> planLimits = new LinkedHashMap<>();
        for (String plan : plans.names()) {
            List<Limit> l = r.get(Settings.POLICY_PLAN_LIMITS.forPolicy(name).forPlan(plan));
            if (l != null) {
                planLimits.put(plan, l);
            }
        }
        Setting<String> keySetting = Settings.POLICY_KEY.forPolicy(name);
        String keyText = r.value(keySetting).map(ConfigValue::value).orElse(keySetting.defaultValue());
        KeyResolver key = r.get(keySetting.withParser(v -> KeyResolvers.parse(v, providers),
                KeyResolvers.parse(keySetting.defaultValue(), providers)));
        RequestMatcher match = r.get(Settings.POLICY_MATCH.forPolicy(name));
        Mode mode = r.get(Settings.POLICY_MODE.forPolicy(name));
        String costKey = Settings.POLICY_COST.forPolicy(name).name();
        Costs cost = r.get(Settings.POLICY_COST.forPolicy(name));
        String algorithmKey = Settings.POLICY_ALGORITHM.forPolicy(name).name();
        Algorithm algorithm = r.get(Settings.POLICY_ALGORITHM.forPolicy(name));
        FailureMode failureMode = r.get(Settings.POLICY_FAILURE_MODE.forPolicy(name));
        java.time.ZoneId zone = r.get(Settings.POLICY_ZONE.forPolicy(name));
        Refusal refusal = new Refusal(r.get(Settings.POLICY_REFUSAL_STATUS.forPolicy(name)),
                r.get(Settings.POLICY_REFUSAL_TYPE.forPolicy(name)), r.get(Settings.POLICY_REFUSAL_TITLE.forPolicy(name)),
                r.get(Settings.POLICY_REFUSAL_HEADERS.forPolicy(name)));
        Prefetch prefetch = prefetch(name);
        Outbound outbound = new Outbound(r.get(Settings.POLICY_MAX_WAIT.forPolicy(name)),
                r.get(Settings.POLICY_MAX_PAUSE.forPolicy(name)));
        if (r.problems.size() > before) {
            return null;
        }
        boolean algorithmSet = r.value(Settings.POLICY_ALGORITHM.forPolicy(name)).isPresent();
        if (!algorithmSet && !limits.isEmpty() && limits.get(0).isCalendar()) {
            algorithm = Algorithm.CALENDAR;
        }
        limits = inZone(limits, zone);
        planLimits.replaceAll((plan, l) -> inZone(l, zone));
        Algorithm chosen = algorithm;
        Map<String, List<Limit>> all = new LinkedHashMap<>();
        all.put(limitsKey, limits);
        planLimits.forEach((plan, l) -> all.put(Settings.POLICY_PLAN_LIMITS.forPolicy(name).forPlan(plan).name(), l));
        all.forEach((key2, set) -> {
            for (Limit l : set) {
                try {
                    Policy.requireAlgorithmFits(l, chosen);
                } catch (IllegalArgumentException e) {
                    r.misfit(key2, e.getMessage() + (algorithmSet ? " (" + algorithmKey + " is " + chosen.name()
                            .toLowerCase(Locale.ROOT).replace('_', '-') + ")" : ""), Limit.SYNTAX);
                    return;
                }
                try {
                    Policy.requireCostFits(l, cost.max());
                } catch (IllegalArgumentException e) {
                    r.misfit(costKey, e.getMessage() + " (" + key2 + ")", "a cost of at most " + l.capacity()
                            + ", or a larger burst");
                    return;
                }
            }
        });
        if (prefetch != null) {
            requirePrefetchFits(name, prefetch, all, chosen, concurrency);
        }
        if (r.problems.size() > before) {
            return null;
        }
        return Policy.builder(name).limits(limits).planLimits(planLimits).key(key, keyText).match(match).mode(mode)
                .cost(cost).algorithm(algorithm).failureMode(failureMode).concurrency(concurrency).refusal(refusal)
                .prefetch(prefetch).outbound(outbound).build();
    }

    /** The policy's token leasing, or {@code null} when {@code prefetch} is unset (a hold alone is refused). */
    private Prefetch prefetch(String name) {
        Integer tokens = r.get(Settings.POLICY_PREFETCH.forPolicy(name));
        java.time.Duration hold = r.get(Settings.POLICY_PREFETCH_HOLD.forPolicy(name));
        alone(tokens == null, Settings.POLICY_PREFETCH_HOLD.forPolicy(name), Settings.POLICY_PREFETCH.forPolicy(name));
        return tokens == null || hold == null ? null : new Prefetch(tokens, hold);
    }

    /**
     * A key that only means something beside another, set without it: refused rather than silently
     * ignored (issue 21: a lease or a hold set alone was accepted and did nothing).
     */
    private void alone(boolean without, Setting<?> key, Setting<?> needed) {
        if (without) {
            r.value(key).ifPresent(v -> r.problems.add(ConfigMessages.badValue(v, "it only applies together with " + needed
                    + ", which is not set", "this key together with " + needed + ", or neither")));
        }
    }

    /** Leasing where it would break a promise is a bad value of {@code prefetch}, named with what it met. */
    private void requirePrefetchFits(String name, Prefetch prefetch, Map<String, List<Limit>> limitsByKey,
                                     Algorithm algorithm, Concurrency concurrency) {
        String key = Settings.POLICY_PREFETCH.forPolicy(name).name();
        try {
            Policy.requirePrefetchFits(algorithm, concurrency);
        } catch (IllegalArgumentException e) {
            r.misfit(key, e.getMessage(), Settings.POLICY_PREFETCH.accepted());
            return;
        }
        for (Map.Entry<String, List<Limit>> e : limitsByKey.entrySet()) {
            for (Limit l : e.getValue()) {
                try {
                    Policy.requirePrefetchFits(l, prefetch);
                } catch (IllegalArgumentException x) {
                    r.misfit(key, x.getMessage() + " (" + e.getKey() + ")", "a prefetch of at most "
                            + Math.min(l.capacity(), Policy.maxPrefetch(l, prefetch.hold()))
                            + " (the burst, and what the rate refills in " + Settings.POLICY_PREFETCH_HOLD.forPolicy(name)
                            + "), or a larger burst or longer hold");
                    return;
                }
            }
        }
    }

    /** The policy's concurrency limit, or {@code null} when it has none (a lease alone is refused). */
    private Concurrency concurrency(String name) {
        Integer slots = r.get(Settings.POLICY_CONCURRENCY.forPolicy(name));
        java.time.Duration lease = r.get(Settings.POLICY_CONCURRENCY_LEASE.forPolicy(name));
        alone(slots == null, Settings.POLICY_CONCURRENCY_LEASE.forPolicy(name), Settings.POLICY_CONCURRENCY.forPolicy(name));
        return slots == null || lease == null ? null : new Concurrency(slots, lease);
    }

    private static List<Limit> inZone(List<Limit> limits, java.time.ZoneId zone) {
        return limits.stream().map(l -> l.inZone(zone)).toList();
    }
}
