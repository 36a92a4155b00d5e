package dev.tollgate.internal.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tollgate.RequestMatcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestPatternsTest {

    @ParameterizedTest(name = "{0} vs {1} {2} -> {3}")
    @CsvSource({
        "/**,                 GET,  /,                    true",
        "/**,                 GET,  /a/b/c,               true",
        "/api/**,             GET,  /api,                 true",
        "/api/**,             GET,  /api/,                true",
        "/api/**,             GET,  /api/users/7,         true",
        "/api/**,             GET,  /apix,                false",
        "/api/*,              GET,  /api/users,           true",
        "/api/*,              GET,  /api/users/7,         false",
        "/api/*,              GET,  /api,                 false",
        "/login,              POST, /login,               true",
        "/login,              POST, /login/,              true",
        "/login,              POST, /login;a=b,           true",
        "/login,              POST, /x/../login,          true",
        "/login,              POST, /./login//,           true",
        "/login,              POST, /login/..,            false",
        "/files/*,            GET,  /files/..,            true",
        "/files/**,           GET,  /files/.;x/,          true",
        "/a/*/b,              GET,  /a//b,                true",
        "/login/,             POST, /login,               true",
        "/a/b,                GET,  /a;v=1/b;w,           true",
        "/a/b,                GET,  /a/b/..;x/b,          true",
        "/api/*,              GET,  /api/,                false",
        "/*,                  GET,  /,                    false",
        "/,                   GET,  //;a/.,               true",
        "POST /login,         POST, /login,               true",
        "POST /login,         GET,  /login,               false",
        "post /login,         POST, /login,               true",
        "GET|HEAD /search/**, HEAD, /search/q,            true",
        "GET /search/**,      HEAD, /search/q,            true",
        "HEAD /search/**,     GET,  /search/q,            false",
        "GET /search/**,      get,  /search/q,            false",
        "GET|HEAD /search/**, POST, /search/q,            false",
        "/files/*.png,        GET,  /files/cat.png,       true",
        "/files/*.png,        GET,  /files/cat.jpg,       false",
        "/a/**/z,             GET,  /a/z,                 true",
        "/a/**/z,             GET,  /a/b/c/z,             true",
        "/a/**/z,             GET,  /a/b/c/y,             false",
        "/users/*/orders,     GET,  /users/7/orders,      true",
        "/dl/*-*-*.zip,       GET,  /dl/a-b-c.zip,        true",
        "/dl/*-*-*.zip,       GET,  /dl/a-b.zip,          false",
        "/dl/*-*-*.zip,       GET,  /dl/---.zip,          true",
        "/dl/*-*-*.zip,       GET,  /dl/a-b-c.zip.txt,    false",
        "/dl/v*.*,            GET,  /dl/v1.2,             true",
        "/dl/v*.*,            GET,  /dl/v12,              false",
    })
    void matches(String pattern, String method, String path, boolean expected) {
        assertEquals(expected, RequestMatcher.parse(pattern).matches(method, path));
    }

    @Test
    void severalEntriesAreAlternatives() {
        RequestMatcher m = RequestMatcher.parse("POST /login, GET /search/**");
        assertTrue(m.matches("POST", "/login"));
        assertTrue(m.matches("GET", "/search/x"));
        assertFalse(m.matches("GET", "/login"));
    }

    @Test
    void aHostilePathCostsLinearTime() {
        RequestMatcher m = RequestMatcher.parse("/**/a/**/b/**/c/**/d");
        String path = "/x".repeat(20_000);
        assertFalse(m.matches("GET", path)); // would never finish with naive backtracking
        assertFalse(m.matches("GET", "/..;/x".repeat(20_000) + "/./a//b;/c;/d;/e"));
        assertFalse(m.matches("GET", ";".repeat(100_000)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "api", "G@T /x", "GET /x /y", "/a**b", "GET", ",", "/login;jsessionid", "/a/../b", "/./a"})
    void refusesBadPatterns(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RequestMatcher.parse(text));
        assertTrue(e.getMessage().length() > 10, e.getMessage());
    }
}
