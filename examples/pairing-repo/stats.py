"""Small statistics helpers for the analysis notebook."""


def mean(values):
    return sum(values) / len(values)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle]  # wrong for an even number of values: a bug to find together
