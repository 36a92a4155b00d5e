package dev.tollgate.bench.decision;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading the command Tollgate sent back from a MONITOR line, and aiming it at other clients. */
class SentCommandTest {

    @Test
    void wordsOfAMonitorLineAreUnquotedAndUnescaped() {
        String line = "1733115600.123456 [0 127.0.0.1:50124] \"evalsha\" \"3f2a\" \"1\" \"tollgate:{ip=198.51.100.77}:default\""
                + " \"2000000\" \"100000\" \"~u.fsnd.b\" \"a\\\"b\" \"\\x00\\x7f\" \"back\\\\slash\" \"tab\\t\"";
        assertEquals(List.of("evalsha", "3f2a", "1", "tollgate:{ip=198.51.100.77}:default", "2000000", "100000",
                "~u.fsnd.b", "a\"b", "\u0000\u007f", "back\\slash", "tab\t"), SentCommand.words(line));
    }

    @Test
    void aLineWithoutWordsHasNone() {
        assertEquals(List.of(), SentCommand.words("OK"));
        assertEquals(List.of(""), SentCommand.words("1.0 [0 unix:/tmp/r] \"\""));
    }

    @Test
    void theCommandIsAimedAtAnotherClientByItsAddressInTheKey() {
        SentCommand sent = new SentCommand(List.of("evalsha", "3f2a", "1", "t:{ip=198.51.100.77}:default", "20"),
                "198.51.100.77");
        assertArrayEquals(new String[] {"evalsha", "3f2a", "1", "t:{ip=__rand_int__}:default", "20"},
                sent.forClient("__rand_int__"));
        assertArrayEquals(new String[] {"evalsha", "3f2a", "1", "t:{ip=192.0.2.1}:default", "20"},
                sent.forClient("192.0.2.1"));
        assertEquals("t:{ip=198.51.100.77}:default", sent.words().get(3), "the captured command is left as it was");
    }

    @Test
    void aKeyThatHidesTheAddressIsRefusedRatherThanBenchmarkedOnOneKey() {
        SentCommand compact = new SentCommand(List.of("evalsha", "3f2a", "1", "t:{Zq3x}:p", "20"), "198.51.100.77");
        assertThrows(IllegalStateException.class, () -> compact.forClient("__rand_int__"));
    }
}
