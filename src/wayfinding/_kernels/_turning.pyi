WORDS: tuple[str, ...]

def norm(x: float, y: float) -> float: ...
def reeds_shepp_word(
    d0: float, d1: float, e0: float, e1: float, wx: float, wy: float, radius: float
) -> tuple[float, float, str, tuple[float, ...], float]: ...
def dubins_word(
    d0: float, d1: float, e0: float, e1: float, wx: float, wy: float, radius: float
) -> tuple[
    str, tuple[float, ...], float, tuple[float, ...], tuple[tuple[float, float], ...]
]: ...
