"""The eval suite's harness: run coding tasks end to end and score the agent.

The tasks live in ``tasks/<name>/`` inside this package (they ship in the wheel, so
``vibe-tui eval`` works once installed); ``runner`` runs them headless, ``report`` prints
and saves the results; ``vibe_tui/cli/evals.py`` is ``vibe-tui eval``.
"""
