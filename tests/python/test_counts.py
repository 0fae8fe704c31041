"""count_of: counts written as text, read strictly, and the settings that read them."""

import os
import unittest
from unittest import mock

from memfloor import companion
from memfloor.census_schedule import parse_schedule
from memfloor.counts import count_of
from memfloor.torch_blocks import free_blocks_model


class CountsTest(unittest.TestCase):
    def test_ascii_digits_only_and_not_too_many(self):
        self.assertEqual(count_of("0"), 0)
        self.assertEqual(count_of("250"), 250)
        self.assertEqual(count_of("9" * 18), int("9" * 18))
        for text in ("", "²", "١٢", "1.5", "-3", " 3", "3 ", "9" * 19, "5" * 5000, "0x10"):
            self.assertIsNone(count_of(text), text)

    def test_a_flush_period_that_is_no_count_is_the_default(self):
        for text in ("²", "5" * 5000, "0", "-1", "soon"):
            with mock.patch.dict(os.environ, {"MEMFLOOR_FLUSH_MS": text}):
                self.assertEqual(companion._period_s(), companion.DEFAULT_FLUSH_MS / 1000, text)
        with mock.patch.dict(os.environ, {"MEMFLOOR_FLUSH_MS": "250"}):
            self.assertEqual(companion._period_s(), 0.25)

    def test_a_census_step_that_is_no_count_is_said_as_such(self):
        self.assertEqual(parse_schedule("2,10").steps, frozenset({2, 10}))
        for text in ("²", "3,²", "5" * 5000, "0"):
            with self.assertRaisesRegex(ValueError, "comma list of optimizer steps"):
                parse_schedule(text)

    def test_an_allocator_split_size_that_is_no_count_is_left_out(self):
        for text in ("²", "5" * 5000):
            with self.subTest(text=text[:8]):
                model = free_blocks_model({"PYTORCH_CUDA_ALLOC_CONF": f"max_split_size_mb:{text}"})
                self.assertIsNone(model._max_split)
        model = free_blocks_model({"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:64"})
        self.assertEqual(model._max_split, 64 << 20)


if __name__ == "__main__":
    unittest.main()
