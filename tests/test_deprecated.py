import warnings

import pytest

from wayfinding._deprecated import alias, renamed_keywords


def test_alias_function_and_class():
    def new(x): return x + 1
    class New:
        def __init__(self, v): self.v = v
    with pytest.warns(DeprecationWarning, match="old\\(\\) is deprecated; use new\\(\\)"):
        assert alias(new, "old")(1) == 2
    with pytest.warns(DeprecationWarning, match="Old is deprecated; use New"):
        o = alias(New, "Old")(3)
    assert isinstance(o, New) and o.v == 3

def test_both_keywords_refused():
    @renamed_keywords(algo="method")
    def f(*, method="a"): return method
    with pytest.raises(TypeError, match="both algo= and method="):
        f(algo="x", method="y")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(method="m") == "m"
