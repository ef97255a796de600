"""`--with` and `attach=`: the agent sees a bounded text summary of a variable, not the object."""

import numpy as np
import pandas as pd

from jupyter_copilot_room.kernel.summaries import PER_VARIABLE, TOTAL, attach_summaries, summarize


def test_a_dataframe_shows_its_shape_dtypes_and_head_not_every_row():
    frame = pd.DataFrame({"city": [f"town-{n}" for n in range(1000)], "rain": np.arange(1000.0)})
    text = summarize(frame)
    assert "type: pandas" in text and "DataFrame" in text
    assert "shape: (1000, 2)" in text
    assert "dtypes:" in text and "rain    float64" in text
    assert "town-4" in text and "town-5" not in text, "head() is five rows"
    assert len(text) <= PER_VARIABLE


def test_an_array_shows_shape_dtype_and_statistics_and_counts_what_is_not_finite():
    text = summarize(np.array([[1.0, 2.0], [3.0, np.nan]]))
    assert "shape: (2, 2)" in text and "dtype: float64" in text
    assert "min: 1.0" in text and "max: 3.0" in text and "mean: 2.0" in text
    assert "non-finite values: 1" in text


def test_anything_else_is_a_truncated_repr_with_a_visible_marker():
    text = summarize("x" * 10_000)
    assert text.startswith("type: builtins.str")
    assert len(text) <= PER_VARIABLE
    big = summarize(list(range(100_000)), limit=200)
    assert len(big) <= 200
    assert "99999" not in big


def test_the_cut_says_how_much_was_left_out():
    class Loud:
        def __repr__(self):
            return "y" * 50_000

    text = summarize(Loud(), limit=500)
    assert len(text) <= 500
    assert "[truncated:" in text and "more characters not shown]" in text


def test_all_summaries_together_are_capped_and_their_code_block_closed():
    class Loud:
        def __repr__(self):
            return "z" * 50_000

    prompt = attach_summaries("Why?", {f"v{n}": Loud() for n in range(10)})
    assert prompt.startswith("Why?\n\nAttached from the notebook (summaries, not the data):")
    assert len(prompt) <= TOTAL + 200
    assert "[truncated:" in prompt
    assert prompt.count("```") % 2 == 0, "a cut summary still ends its code block"
    assert "`v0`:" in prompt
