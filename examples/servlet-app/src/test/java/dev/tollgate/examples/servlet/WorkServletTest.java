package dev.tollgate.examples.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.UnavailableException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The work servlet's init-params: defaults, accepted values, and a bad value named at start-up. */
class WorkServletTest {

    @Test
    void anAbsentOrBlankValueIsTheDefault() throws Exception {
        assertEquals(1_000, WorkServlet.CPU_MICROS.read(null));
        assertEquals(10, WorkServlet.POOL_SIZE.read("  "));
    }

    @Test
    void aValueInRangeIsTaken() throws Exception {
        assertEquals(25, WorkServlet.HOLD_MILLIS.read(" 25 "));
        assertEquals(0, WorkServlet.CPU_MICROS.read("0"));
        assertEquals(10_000, WorkServlet.POOL_SIZE.read("10000"));
    }

    @Test
    void aBadValueIsRefusedNamingTheParamTheValueAndWhatIsAccepted() {
        for (String bad : new String[] {"0", "10001", "-3", "ten", "1e3", "99999999999999999999"}) {
            UnavailableException e = assertThrows(UnavailableException.class, () -> WorkServlet.POOL_SIZE.read(bad), bad);
            assertEquals("work servlet: init-param pool-size='" + bad
                    + "' is not accepted; accepted: a whole number from 1 to 10000", e.getMessage());
        }
    }

    @Test
    void initStopsOnABadValue() {
        WorkServlet servlet = new WorkServlet();
        UnavailableException e = assertThrows(UnavailableException.class,
                () -> servlet.init(config(Map.of("cpu-micros", "500", "hold-millis", "2 minutes"))));
        assertTrue(e.getMessage().contains("hold-millis='2 minutes'"), e.getMessage());
        assertTrue(e.getMessage().contains("from 0 to 60000"), e.getMessage());
    }

    private static ServletConfig config(Map<String, String> params) {
        return new ServletConfig() {
            @Override
            public String getServletName() {
                return "work";
            }

            @Override
            public ServletContext getServletContext() {
                return null;
            }

            @Override
            public String getInitParameter(String name) {
                return params.get(name);
            }

            @Override
            public Enumeration<String> getInitParameterNames() {
                return Collections.enumeration(params.keySet());
            }
        };
    }
}
