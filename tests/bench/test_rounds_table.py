"""bench/rounds_table.py on made-up rounds: quartiles, ratios within a round, limits, bad input."""
import io
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

import rounds_table

# Round 3 is slow for every mode alike: the raw medians move, the within-round ratios do not.
HOOK_ROUNDS = """\
# ROUND MODE NS
1 untraced 350
1 minimal 1000
1 hook-none 1050
1 hook-native 1250
2 minimal 1100
2 hook-none 1166
2 untraced 360
2 hook-native 1386
3 hook-native 2400
3 untraced 700
3 minimal 2000
3 hook-none 2080
4 hook-none 1092
4 hook-native 1300
4 untraced 340
4 minimal 1040
"""


class QuartilesTest(unittest.TestCase):
    def test_odd_and_even_counts(self):
        self.assertEqual(rounds_table.quartiles([5, 1, 3]), (2.0, 3.0, 4.0))
        self.assertEqual(rounds_table.quartiles([1, 2, 3, 4]), (1.75, 2.5, 3.25))
        self.assertEqual(rounds_table.quartiles([7]), (7, 7, 7))


class RatiosTest(unittest.TestCase):
    def test_ratios_are_taken_within_each_round(self):
        table = rounds_table.read_rounds(HOOK_ROUNDS.splitlines())
        self.assertEqual(list(table), ["untraced", "minimal", "hook-none", "hook-native"])
        none = rounds_table.ratios(table, "hook-none", "minimal")
        self.assertEqual([round(x, 3) for x in none], [1.05, 1.06, 1.04, 1.05])
        native = rounds_table.ratios(table, "hook-native", "minimal")
        self.assertEqual([round(x, 3) for x in native], [1.25, 1.26, 1.2, 1.25])

    def test_a_round_without_the_baseline_gives_no_ratio(self):
        table = rounds_table.read_rounds(["1 minimal 10", "1 hook-none 11", "2 hook-none 50"])
        self.assertEqual(rounds_table.ratios(table, "hook-none", "minimal"), [1.1])


class RenderTest(unittest.TestCase):
    def test_hook_table_has_medians_ratios_and_verdicts(self):
        table = rounds_table.read_rounds(HOOK_ROUNDS.splitlines())
        lines = rounds_table.render(table, "minimal", "ns/call",
                                    limits={"hook-none": 1.1, "hook-native": 1.2}, title="t")
        text = "\n".join(lines)
        self.assertIn("t: 4 interleaved rounds", lines[0])
        none = next(line for line in lines if line.startswith("hook-none"))
        self.assertIn("1.050", none)   # median of 1.04 1.05 1.05 1.06
        self.assertIn("<= 1.1: ok", none)
        native = next(line for line in lines if line.startswith("hook-native"))
        self.assertIn("<= 1.2: OVER", native)
        minimal = next(line for line in lines if line.startswith("minimal "))
        self.assertIn("1070.000", minimal)  # raw median of 1000 1040 1100 2000
        self.assertIn("per round, / minimal:", text)
        self.assertRegex(text, r"\n3\s+0\.350\s+1\.040\s+1\.200")

    def test_percent_over_the_baseline(self):
        table = rounds_table.read_rounds([
            "1 untraced 20.0", "1 native 20.4", "2 native 21.0", "2 untraced 20.0",
            "3 untraced 22.0", "3 native 22.22"])
        lines = rounds_table.render(table, "untraced", "ms", percent=True, limits={"native": 3})
        native = next(line for line in lines if line.startswith("native"))
        self.assertIn("+2.00%", native)  # median of +2%, +5%, +1%
        self.assertIn("<= 3%: ok", native)


class MainTest(unittest.TestCase):
    def run_main(self, args):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = rounds_table.main(args)
        return code, out.getvalue(), err.getvalue()

    def test_bad_lines_name_the_file_and_line(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rounds.txt")
            with open(path, "w") as f:
                f.write("1 minimal 10\n1 hook-none\n")
            code, _, err = self.run_main([path, "--baseline", "minimal"])
        self.assertEqual(code, 2)
        self.assertIn(f"{path}:2: expected 'ROUND MODE VALUE'", err)

    def test_a_table_on_stdout(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rounds.txt")
            with open(path, "w") as f:
                f.write(HOOK_ROUNDS)
            code, out, _ = self.run_main([path, "--baseline", "minimal", "--limit", "hook-none=1.1"])
        self.assertEqual(code, 0)
        self.assertIn("<= 1.1: ok", out)

    def test_a_missing_file_is_exit_2(self):
        code, _, err = self.run_main(["/nonexistent/rounds.txt", "--baseline", "minimal"])
        self.assertEqual(code, 2)
        self.assertIn("/nonexistent/rounds.txt:", err)


if __name__ == "__main__":
    unittest.main()
