"""The eval suite's harness: run coding tasks end to end and score the agent.

The tasks live in ``evals/tasks/<name>/`` at the root of the source tree; ``runner`` runs
them headless, ``report`` prints and saves the results, ``cli`` is ``vibe-tui eval``.
"""
