package dev.tollgate.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The table of what each fault and change may add to the bounds, in {@code docs/guarantees.md}, is
 * the checker's own ({@link Allowance}): the promise and the proof cannot drift apart.
 */
class AllowanceTableTest {

    @Test
    void theGuaranteesPageStatesTheBoundsTheCheckerHolds() throws IOException {
        Path page = Path.of(System.getProperty("user.dir")).resolve("../../docs/guarantees.md").normalize();
        List<String> lines = Files.readAllLines(page);
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("<!-- allowances:")) {
                start = i;
            } else if (lines.get(i).equals("<!-- /allowances -->")) {
                end = i;
            }
        }
        assertTrue(start >= 0 && end > start + 3, page + " has the table between <!-- allowances: ... --> and <!-- /allowances -->");
        List<String> rows = new ArrayList<>(lines.subList(start + 3, end)); // after the header and its rule
        List<String> expected = new ArrayList<>();
        for (Allowance a : Allowance.values()) {
            expected.add(a.row());
        }
        assertEquals(expected, rows, "docs/guarantees.md's allowance table, row by row");
    }
}
