"""Hypothesis's profiles: ``repeatable`` (the default: the same
examples on every run, so that the suite's verdict does not change from run to run) and
``explore`` (fresh random examples each run; ``make test-all``).  Choose with the
``HYPOTHESIS_PROFILE`` environment variable."""

import os

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

